/// Small text helpers for untrusted feed strings (internal).
enum FeedText {
    /// Longest title/author/message kept, in characters.
    static let maxFieldCharacters = 1_000
    /// Longest image URL accepted, in UTF-8 bytes.
    static let maxURLBytes = 8_192

    /// Replaces every run of control characters and whitespace by one space and trims the ends.
    static func collapsingControls(_ s: String) -> String {
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

    /// Clips `s` to at most `limit` characters, appending "…" when something was cut.
    static func clip(_ s: String, to limit: Int) -> String {
        guard limit > 0 else { return "" }
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
        case invalid(String)
    }

    /// Accepts absolute http(s) URLs without spaces or control characters; `""` is absent.
    static func checkImageURL(_ raw: String?) -> URLCheck {
        guard let raw else { return .absent }
        let trimmed = trimmedASCIIWhitespace(raw)
        if trimmed.isEmpty { return .absent }
        if trimmed.utf8.count > maxURLBytes {
            return .invalid("image URL too long (\(trimmed.utf8.count) bytes)")
        }
        let lower = trimmed.lowercased()
        let hasScheme = lower.hasPrefix("http://") || lower.hasPrefix("https://")
        let schemeLength = lower.hasPrefix("https://") ? 8 : 7
        let hasHost = trimmed.utf8.count > schemeLength
        let clean = !trimmed.unicodeScalars.contains {
            $0.value <= 0x20 || $0.value == 0x7F
        }
        guard hasScheme, hasHost, clean else {
            return .invalid("image URL is not an http(s) URL: \(clip(collapsingControls(trimmed), to: 80))")
        }
        return .ok(trimmed)
    }

    static func trimmedASCIIWhitespace(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
