/// Small text helpers for untrusted feed strings (internal).
enum FeedText {
    /// Longest title/author/message kept, in characters.
    static let maxFieldCharacters = 1_000
    /// Longest image URL accepted, in UTF-8 bytes.
    static let maxURLBytes = 8_192

    /// Replaces every run of control characters and whitespace by one space and trims the ends.
    static func collapsingControls(_ s: String) -> String {
        if let ascii = collapsingControlsASCII(s) { return ascii }
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in s.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `collapsingControls` for pure ASCII text without Unicode property lookups (ASCII controls
    /// are 0x00–0x1F and 0x7F; ASCII whitespace 0x09–0x0D and 0x20); nil for other text.
    private static func collapsingControlsASCII(_ s: String) -> String? {
        var s = s
        return s.withUTF8 { utf8 -> String? in
            var clean = true  // already collapsed: no control, no leading/trailing/double space
            var previousSpace = true
            for byte in utf8 {
                if byte >= 0x80 { return nil }
                let space = byte <= 0x20 || byte == 0x7F
                if space && (byte != 0x20 || previousSpace) { clean = false }
                previousSpace = space
            }
            if clean && !previousSpace { return String(decoding: utf8, as: UTF8.self) }
            if clean && utf8.isEmpty { return "" }
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count)
            var pendingSpace = false
            for byte in utf8 {
                if byte <= 0x20 || byte == 0x7F {
                    pendingSpace = !out.isEmpty
                } else {
                    if pendingSpace { out.append(0x20) }
                    pendingSpace = false
                    out.append(byte)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// Clips `s` to at most `limit` characters, appending "…" when something was cut.
    static func clip(_ s: String, to limit: Int) -> String {
        guard limit > 0 else { return "" }
        // At most `limit` UTF-8 bytes means at most `limit` characters: no need to count them.
        if s.utf8.count <= limit { return s }
        guard s.count > limit else { return s }
        return String(s.prefix(limit)) + "…"
    }

    /// A one-line, bounded, redacted excerpt of a (possibly binary) body.
    /// Redaction happens before clipping, so a secret cut at the edge cannot leak a prefix.
    /// The window is redacted with enough bytes after it that a secret crossing its end is
    /// masked whole, never left as a prefix.
    static func excerpt(_ body: [UInt8], limit: Int, redactor: SecretRedactor) -> String {
        let size = max(limit, 0) * 4 + 256
        let redacted = redactor.redact(bytes: Array(body.prefix(size + redactor.longestPatternBytes)))
        let text = collapsingControls(String(decoding: redacted.prefix(size), as: UTF8.self))
        return clip(redactor.redact(text), to: limit)
    }

    /// Cleans a title-like field: collapses controls, clips to `maxFieldCharacters`.
    static func field(_ s: String) -> String {
        clip(collapsingControls(s), to: maxFieldCharacters)
    }

    /// Cleans an optional field; `nil` when empty after cleaning.
    static func optionalField(_ s: String?) -> String? {
        guard let s else { return nil }
        let cleaned = field(s)
        return cleaned.isEmpty ? nil : cleaned
    }

    /// Result of checking an image URL taken from a feed.
    enum URLCheck: Equatable {
        case absent
        case ok(String)
        /// Why the value cannot be used, and its text (control characters collapsed, clipped).
        case invalid(String, String)
    }

    /// Accepts absolute http(s) URLs, made valid as a browser would (`URLCheck.fetchable`:
    /// spaces and non-ASCII percent-encoded, surrounding whitespace removed); `""` is absent.
    static func checkImageURL(_ raw: String?) -> URLCheck {
        guard let raw else { return .absent }
        if plainHTTPURL(raw) { return .ok(raw) }
        let trimmed = trimmedASCIIWhitespace(raw)
        if trimmed.isEmpty { return .absent }
        if trimmed.utf8.count > maxURLBytes {
            return .invalid("image URL too long (\(trimmed.utf8.count) bytes)", clip(collapsingControls(trimmed), to: 200))
        }
        switch FeedCrawlKit.URLCheck.fetchable(trimmed) {
        case .success(let url):
            return .ok(url)
        case .failure(let problem):
            let shown = clip(collapsingControls(trimmed), to: 80)
            let reason = problem.isScheme ? "image URL is not an http(s) URL: \(shown)"
                : "image URL cannot be made valid (\(problem)): \(shown)"
            return .invalid(reason, clip(collapsingControls(trimmed), to: 200))
        }
    }

    /// The common case of `checkImageURL` without allocating: printable ASCII (no space, none of
    /// `"<>\`` which a browser would encode or read otherwise, no `@`), `http://` or `https://` in
    /// any case, a host after it, not too long.
    private static func plainHTTPURL(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            guard b.count > 7, b.count <= maxURLBytes else { return false }
            for byte in b where byte <= 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x3C || byte == 0x3E
                || byte == 0x5C || byte == 0x60 || byte == 0x40 { return false }
            guard let scheme = FeedCrawlKit.URLCheck.httpSchemeLength(b), b.count > scheme else { return false }
            // A host must follow (`https:///x`, `https://:80` have none).
            let first = b[scheme]
            return first != UInt8(ascii: "/") && first != UInt8(ascii: "?") && first != UInt8(ascii: "#")
                && first != UInt8(ascii: ":")
        }
    }

    static func trimmedASCIIWhitespace(_ s: String) -> String {
        // Common case: printable ASCII at both ends, nothing to trim.
        if let first = s.utf8.first, let last = s.utf8.last,
           first > 0x20, first < 0x7F, last > 0x20, last < 0x7F {
            return s
        }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
