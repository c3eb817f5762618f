import FoundationEssentials

/// Output formats of `feedcrawl manifest`.
public enum InspectionFormat: String, Sendable, CaseIterable {
    /// Aligned columns for people (default). Feed text is sanitized for the terminal.
    case table
    /// Pretty-printed JSON with sorted keys and ISO-8601 dates, for scripts.
    case json
    /// Comma-separated values with a header row, for spreadsheets.
    case csv
    /// One item a line, each the manifest's own JSON form (newline-delimited JSON), for jq and
    /// line tools; a summary is one line.
    case ndjson

    /// Encodes `value` as pretty JSON (sorted keys, ISO-8601 dates), ending with a newline.
    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value) else { return "null\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Encodes `value` as one line of compact JSON (sorted keys, ISO-8601 dates) and a newline.
    static func jsonLine<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value) else { return "null\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// An ISO-8601 UTC date with whole seconds.
    static func date(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}

/// Left-aligned text columns separated by two spaces; `numeric` columns are right-aligned.
/// Cells must already be sanitized.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    var numeric: Set<Int> = []

    func render() -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return all.map { Self.line($0, widths: widths, numeric: numeric) }.joined()
    }

    /// One line of `row`: each cell padded to its column's width, but the last (unless numeric).
    static func line(_ row: [String], widths: [Int], numeric: Set<Int> = []) -> String {
        var cells: [String] = []
        for (index, cell) in row.enumerated() where index < widths.count {
            let pad = String(repeating: " ", count: widths[index] - cell.count)
            let last = index == row.count - 1
            cells.append(numeric.contains(index) ? pad + cell : (last ? cell : cell + pad))
        }
        return cells.joined(separator: "  ") + "\n"
    }
}
