import FoundationEssentials

/// JSON settings shared by the manifest and the journal.
///
/// Dates are ISO-8601 in UTC with whole seconds (`2024-05-01T12:00:00Z`); decoding also accepts
/// fractional seconds. Keys are sorted and slashes are not escaped.
public enum ManifestCoding {
    /// Encoder for a run record in the manifest: compact (no newlines), sorted keys, dates with
    /// milliseconds (a merge compares the start times of shards' runs).
    public static func compactEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(millisecondText(date))
        }
        return encoder
    }

    /// `date` as ISO-8601 in UTC with milliseconds, rounded to the nearest one
    /// (`2024-05-01T12:00:00.250Z`). Not `ISO8601FormatStyle(includingFractionalSeconds:)`: it
    /// truncates, and the date it parses from `.653` is often just below it, so a time written,
    /// read and written again would lose a millisecond each time (and a merge comparing shard
    /// start times would take an old part for a newer one). This text reads back as a date
    /// that writes as the same text.
    static func millisecondText(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 1e17 else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        let total = Int64(milliseconds)
        var seconds = total / 1000
        var fraction = total % 1000
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        var text = Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle())
        guard text.hasSuffix("Z") else { return text }
        text.removeLast()
        let digits = String(fraction)
        return text + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Decoder for both; lenient about unknown keys (ignored) and fractional seconds.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = parseDate(text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "invalid ISO-8601 date \"\(text.prefix(40))\"")
        }
        return decoder
    }

    /// Parses an ISO-8601 date-time with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    /// A one-line explanation of a decoding error, e.g. `missing key "status" at items[3]`.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ keys: [any CodingKey]) -> String {
            var out = ""
            for key in keys {
                if let index = key.intValue { out += "[\(index)]" } else { out += (out.isEmpty ? "" : ".") + key.stringValue }
            }
            return out.isEmpty ? "top level" : out
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "unexpected value at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }
}
