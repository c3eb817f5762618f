import FeedCrawlSupport
import FeedCrawlHTTP

/// Request headers an operator adds to a source's feed requests (`--header "Name: value"`, a
/// source's `headers` in the configuration file), as curl's `-H` does: sent with every feed
/// request of the source (pages, launch details), replacing a header of the same name the
/// crawler would send. Never sent with image requests.
///
/// Their values are secrets: the run's `SecretRedactor` masks each value (and, for
/// `Scheme credentials`, the credentials alone) wherever it could appear, and nothing written
/// or printed holds one; only the names are shown.
public enum FeedHeaders {
    /// Why a header cannot be sent; the text names the header, never its value.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Headers the transfer itself owns: `Host`, `Content-Length`, `Transfer-Encoding`.
    public static let reserved: Set<String> = ["host", "content-length", "transfer-encoding"]
    /// The longest value accepted: 8,192 bytes.
    public static let maxValueBytes = 8_192

    /// Parses `Name: value` as curl's `-H` (whitespace around the value removed).
    public static func parse(_ text: String) throws(Invalid) -> HTTPHeader {
        guard let colon = text.firstIndex(of: ":") else {
            throw Invalid(description: "expected \"Name: value\" (a name, a colon, the value)")
        }
        return try check(name: String(text[..<colon]), value: String(text[text.index(after: colon)...]))
    }

    /// `name` and `value` as a header, checked: the name a token of 1 to 128 characters (letters,
    /// digits, ``!#$%&'*+-.^_`|~``), not `reserved`; the value without CR, LF, NUL or other
    /// control characters but tab, at most `maxValueBytes`.
    public static func check(name: String, value: String) throws(Invalid) -> HTTPHeader {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)
        guard (1...128).contains(name.utf8.count), name.utf8.allSatisfy({ byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || tokenPunctuation.contains(byte)
        }) else {
            throw Invalid(description: "header name '\(TerminalText.sanitize(String(name.prefix(40))))' is not a token "
                + "(letters, digits and !#$%&'*+-.^_`|~, no spaces, CR or LF)")
        }
        guard !reserved.contains(name.lowercased()) else {
            throw Invalid(description: "header \(name) is set by the transfer itself and cannot be given")
        }
        let trimmed = FeedText.trimmedASCIIWhitespace(value)
        if trimmed.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
            throw Invalid(description: "header \(name): the value may not hold CR or LF")
        }
        guard !trimmed.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else {
            throw Invalid(description: "header \(name): the value may not hold control characters")
        }
        guard trimmed.utf8.count <= maxValueBytes else {
            throw Invalid(description: "header \(name): the value is longer than \(maxValueBytes) bytes")
        }
        return HTTPHeader(name: name, value: trimmed)
    }

    /// What to mask for `headers`: each value, and the part after its first space (the
    /// credentials of `Bearer <token>`, `Basic <base64>`), which a server may echo alone.
    public static func secrets(_ headers: [HTTPHeader]) -> [String] {
        headers.flatMap { header -> [String] in
            guard let space = header.value.firstIndex(of: " ") else { return [header.value] }
            let credentials = FeedText.trimmedASCIIWhitespace(String(header.value[header.value.index(after: space)...]))
            return [header.value, credentials]
        }
    }

    /// `base` with `extra` added; a header of `extra` replaces those of `base` with the same
    /// name (case-insensitive), as curl's `-H` does.
    static func merged(_ base: [HTTPHeader], _ extra: [HTTPHeader]) -> [HTTPHeader] {
        guard !extra.isEmpty else { return base }
        let replaced = Set(extra.map { $0.name.lowercased() })
        return base.filter { !replaced.contains($0.name.lowercased()) } + extra
    }
}
