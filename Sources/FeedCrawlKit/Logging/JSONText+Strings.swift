/// Writing JSON text by hand, for log lines that must be cheap and byte-stable (string helpers;
/// the byte-buffer writer for the journal and manifest is in Manifest/JSONText.swift).
extension JSONText {
    /// Appends `s` as a JSON string literal. Quotes, backslashes and every control character
    /// (C0, DEL, C1) are escaped, as are U+2028/U+2029, so the output is one safe line.
    public static func appendString(_ s: String, to out: inout String) {
        out += "\""
        var plainStart = s.unicodeScalars.startIndex
        var index = plainStart
        let scalars = s.unicodeScalars
        while index < scalars.endIndex {
            let c = scalars[index]
            let escape: String?
            switch c.value {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
                let hex = String(c.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escape = nil
            }
            if let escape {
                out.unicodeScalars.append(contentsOf: scalars[plainStart..<index])
                out += escape
                plainStart = scalars.index(after: index)
            }
            index = scalars.index(after: index)
        }
        out.unicodeScalars.append(contentsOf: scalars[plainStart..<scalars.endIndex])
        out += "\""
    }

    /// `s` as a JSON string literal.
    public static func quoted(_ s: String) -> String {
        var out = ""
        appendString(s, to: &out)
        return out
    }

    /// Appends a log value: strings quoted, numbers as numbers (non-finite doubles as `null`).
    public static func appendValue(_ value: LogValue, to out: inout String) {
        switch value {
        case .string(let s): appendString(s, to: &out)
        case .int(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .double(let d):
            guard d.isFinite else { out += "null"; return }
            let rounded = (d * 1000).rounded() / 1000
            out += rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
        }
    }
}
