import FoundationEssentials

/// How serious a log record is. Ordered: `debug < info < warning < error`.
public enum LogLevel: String, Sendable, Comparable, CaseIterable {
    /// One line per transfer (`--verbose`).
    case debug
    /// Pages, periodic progress, retries, the summary.
    case info
    /// Something went wrong but the run goes on.
    case warning
    /// A source or the run failed.
    case error

    /// In declaration order.
    public static func < (a: LogLevel, b: LogLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A value attached to a log record.
public enum LogValue: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
}

/// A named value attached to a log record.
public struct LogField: Sendable, Equatable {
    public var name: String
    public var value: LogValue

    public init(_ name: String, _ value: LogValue) {
        self.name = name
        self.value = value
    }

    public init(_ name: String, _ value: String) { self.init(name, .string(value)) }
    public init(_ name: String, _ value: Int) { self.init(name, .int(Int64(value))) }
    public init(_ name: String, _ value: Int64) { self.init(name, .int(value)) }
    public init(_ name: String, _ value: Double) { self.init(name, .double(value)) }
    public init(_ name: String, _ value: Bool) { self.init(name, .bool(value)) }
}

/// One thing worth logging. `message` is for people; `event` and `fields` are for machines.
/// Text may hold untrusted feed text: `LogFormat` makes it safe (terminal-sanitised or JSON-escaped).
public struct LogRecord: Sendable, Equatable {
    /// When it happened.
    public var time: Date
    public var level: LogLevel
    /// The source it concerns, nil for the run as a whole.
    public var source: String?
    /// A short stable name: `page`, `progress`, `image`, `retry`, `warning`, `source-failed`,
    /// `summary`, `notice`, `error`.
    public var event: String
    /// A one-line human-readable description.
    public var message: String
    /// Machine-readable details, in order.
    public var fields: [LogField]

    /// Creates a record; `time` defaults to now, `source` to nil, `fields` to none.
    public init(
        time: Date = Date(), level: LogLevel, source: String? = nil, event: String, message: String,
        fields: [LogField] = []
    ) {
        self.time = time
        self.level = level
        self.source = source
        self.event = event
        self.message = message
        self.fields = fields
    }
}
