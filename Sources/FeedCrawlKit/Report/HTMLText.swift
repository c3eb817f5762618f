import FeedCrawlSupport

/// Escaping untrusted text for HTML.
public enum HTMLText {
    /// `s` safe as element content or a quoted attribute value: `& < > " '` become entities;
    /// control characters (terminal escapes, NUL, bidi overrides) are removed as
    /// `TerminalText.sanitize` does. Text longer than `limit` characters is cut and ends in `…`.
    public static func escape(_ s: String, limit: Int = 500) -> String {
        // Fast path (most titles, ids and names): short printable ASCII with nothing to escape.
        if s.utf8.count <= limit, s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x26 && $0 != 0x3C
                && $0 != 0x3E && $0 != 0x22 && $0 != 0x27 }) {
            return s
        }
        var text = TerminalText.sanitize(s)
        // Counting characters walks grapheme clusters; no more bytes than `limit` needs no count.
        if text.utf8.count > limit, text.count > limit { text = String(text.prefix(limit)) + "…" }
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
        var path = path
        return path.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 512 else { return false }
            // One pass: the current name's length and whether it is all dots so far.
            var length = 0
            var allDots = true
            for b in bytes {
                if b == 0x2F { // "/"
                    guard length > 0, !(allDots && length <= 2) else { return false }
                    length = 0
                    allDots = true
                    continue
                }
                let ok = (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                    || b == 0x2E || b == 0x5F || b == 0x2D
                guard ok else { return false }
                length += 1
                if b != 0x2E { allDots = false }
            }
            return length > 0 && !(allDots && length <= 2)
        }
    }
}
