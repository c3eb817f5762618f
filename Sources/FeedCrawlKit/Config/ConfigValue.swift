import FeedCrawlSupport

/// Any JSON value, as read from a configuration file.
public enum ConfigValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ConfigValue])
    case object([String: ConfigValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([ConfigValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: ConfigValue].self)) }
    }

    /// What the value is, for error messages: `a string`, `a number`, `true`, `an object`, ...
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): "the number \(Self.numberText(n))"
        case .string(let s): "the string \"\(TerminalText.sanitize(String(s.prefix(60))))\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value as command-line text: strings as they are, numbers without a needless `.0`;
    /// nil for other kinds.
    public var argumentText: String? {
        switch self {
        case .string(let s): s
        case .number(let n): Self.numberText(n)
        default: nil
        }
    }

    /// The one rule for lists, at the top level and in a source alike: a JSON array of strings
    /// (`["preview", "large"]`) or one string of comma-separated names (`"preview,large"`, as
    /// on the command line). nil for other kinds and for arrays holding anything but strings.
    public var listItems: [String]? {
        switch self {
        case .string(let text):
            return text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        case .array(let elements):
            var items: [String] = []
            for element in elements {
                guard case .string(let item) = element else { return nil }
                items.append(item)
            }
            return items
        default:
            return nil
        }
    }

    static func numberText(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    }
}
