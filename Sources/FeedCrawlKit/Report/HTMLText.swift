/// Escaping untrusted text for HTML.
public enum HTMLText {
    /// `s` safe as element content or a quoted attribute value: `& < > " '` become entities;
    /// control characters (terminal escapes, NUL, bidi overrides) are removed as
    /// `TerminalText.sanitize` does. Text longer than `limit` characters is cut and ends in `…`.
    public static func escape(_ s: String, limit: Int = 500) -> String {
        var text = TerminalText.sanitize(s)
        if text.count > limit { text = String(text.prefix(limit)) + "…" }
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Whether `path` may be used as a relative link inside OUT: non-empty, relative, made of
    /// `/`-separated names of letters, digits, `.`, `_` and `-` only, none of them `.` or `..`.
    /// Such a path needs no escaping and cannot leave OUT or name a scheme.
    public static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, path.utf8.count <= 512, !path.hasPrefix("/") else { return false }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else { return false }
            let ok = component.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                    || b == 0x2E || b == 0x5F || b == 0x2D
            }
            guard ok else { return false }
        }
        return true
    }
}
