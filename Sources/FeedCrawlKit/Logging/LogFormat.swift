import FoundationEssentials
import FeedCrawlSupport

/// How log records are written: `text` for people, `json` for machines (one object per line).
public enum LogFormat: String, Sendable, CaseIterable {
    case text
    case json

    /// One line (without the newline) for `record`.
    ///
    /// - text: `feedcrawl: pixabay: warning: page 3: HTTP 500`; with `timestamps` (log files) the
    ///   line starts with the ISO-8601 time and the level: `2024-05-01T12:00:00.250Z warning feedcrawl: ...`.
    ///   Untrusted text goes through `TerminalText.sanitize`, so the line holds no control characters.
    /// - json: `{"timestamp":"…","level":"info","source":"pixabay","event":"page","message":"…","fields":{"page":3}}`;
    ///   `source` is `null` for run-level records. Control characters are escaped, so a line never
    ///   holds a raw escape code or line break.
    public func format(_ record: LogRecord, timestamps: Bool = false) -> String {
        switch self {
        case .text: return Self.text(record, timestamps: timestamps)
        case .json: return Self.json(record)
        }
    }

    static func text(_ record: LogRecord, timestamps: Bool) -> String {
        var line = ""
        if timestamps { line += timestamp(record.time) + " " + record.level.rawValue + " " }
        line += "feedcrawl: "
        if let source = record.source, !source.isEmpty { line += TerminalText.sanitize(source) + ": " }
        if !timestamps, record.level >= .warning { line += record.level.rawValue + ": " }
        line += TerminalText.sanitize(record.message)
        return line
    }

    static func json(_ record: LogRecord) -> String {
        // The time and the level need no escaping.
        var out = "{\"timestamp\":\"" + timestamp(record.time) + "\",\"level\":\"" + record.level.rawValue + "\",\"source\":"
        if let source = record.source, !source.isEmpty { JSONText.appendString(source, to: &out) } else { out += "null" }
        out += ",\"event\":" + JSONText.quoted(record.event) + ",\"message\":"
        JSONText.appendString(record.message, to: &out)
        out += ",\"fields\":{"
        for (index, field) in record.fields.enumerated() {
            if index > 0 { out += "," }
            JSONText.appendString(field.name, to: &out)
            out += ":"
            JSONText.appendValue(field.value, to: &out)
        }
        out += "}}"
        return out
    }

    /// UTC, ISO 8601, milliseconds: `2024-05-01T12:00:00.250Z`.
    public static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
