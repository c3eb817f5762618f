import FeedCrawlSupport

/// Comma-separated values as spreadsheets read them (RFC 4180), made safe for untrusted text.
public enum CSV {
    /// One field: control characters and escape sequences removed (`TerminalText.sanitize`), a
    /// text that a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`) prefixed
    /// with `'` unless it is a plain number, and quoted with doubled quotes when it holds a comma,
    /// a quote or starts or ends with a space.
    public static func field(_ text: String) -> String {
        var value = TerminalText.sanitize(text)
        if let first = value.first, "=+-@".contains(first), Double(value) == nil {
            value = "'" + value
        }
        let needsQuotes = value.contains(",") || value.contains("\"")
            || value.hasPrefix(" ") || value.hasSuffix(" ")
        guard needsQuotes else { return value }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }

    /// One record: the fields escaped and joined with commas (no line ending).
    public static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",")
    }

    /// A header and records, one a line (`\n`, as Unix tools expect), ending with a newline.
    public static func document(header: [String], rows: [[String]]) -> String {
        ([row(header)] + rows.map(row)).joined(separator: "\n") + "\n"
    }
}
