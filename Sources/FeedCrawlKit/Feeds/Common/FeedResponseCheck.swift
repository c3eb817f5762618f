import FeedCrawlHTTP

/// Decides whether a response body should be handed to a JSON decoder.
///
/// Rules, in order:
/// - media type `application/json`, `text/json` or any `…+json` → JSON, whatever the body;
/// - no content type, `text/plain` or `application/octet-stream` → JSON only when the body
///   looks like a JSON object or array (`[ERROR 400] …` does not);
/// - anything else (e.g. `text/html` with status 200) → not JSON, and why.
///
/// The status is not judged here (GraphQL servers answer 400 with a JSON body); it only
/// prefixes the reason (`"HTTP 503: "`) when it is not 2xx.
public enum FeedResponseCheck {
    /// Characters of the body quoted in a reason: 120.
    public static let excerptLength = 120

    /// Nil when the body should be decoded as JSON, else why not, one line, e.g.
    /// `expected JSON, got text/html: <first ~120 chars, control chars collapsed, secrets redacted>`.
    /// `contentType` is the raw header value (parameters allowed).
    public static func check(
        status: Int,
        contentType: String?,
        body: [UInt8],
        redactor: SecretRedactor = SecretRedactor(secrets: [])
    ) -> String? {
        let mediaType = contentType.map(Self.mediaType(of:)) ?? ""
        let prefix = (200...299).contains(status) ? "" : "HTTP \(status): "
        if mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json") {
            return nil
        }
        let sniffable = mediaType.isEmpty || mediaType == "text/plain" || mediaType == "application/octet-stream"
        if sniffable && looksLikeJSON(body) {
            return nil
        }
        let shown = mediaType.isEmpty ? "no content type" : mediaType
        if body.isEmpty {
            return prefix + "expected JSON, got \(shown) with an empty body"
        }
        let excerpt = FeedText.excerpt(body, limit: excerptLength, redactor: redactor)
        return prefix + "expected JSON, got \(shown): \(excerpt)"
    }

    /// `"Text/HTML; charset=utf-8"` → `"text/html"`.
    static func mediaType(of contentType: String) -> String {
        let head = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return FeedText.trimmedASCIIWhitespace(String(head)).lowercased()
    }

    /// True when the body (after an optional UTF-8 BOM and whitespace) starts with `{`, or
    /// with `[` followed by something that can start a JSON value or `]`. The second check
    /// keeps Pixabay's plain-text errors (`[ERROR 400] ...`) out.
    static func looksLikeJSON(_ body: [UInt8]) -> Bool {
        let bytes = FeedJSON.strippingBOM(body)
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }) else { return false }
        if bytes[first] == UInt8(ascii: "{") { return true }
        guard bytes[first] == UInt8(ascii: "[") else { return false }
        guard let next = bytes[(first + 1)...].first(where: { !isWhitespace($0) }) else { return false }
        switch next {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "\""), UInt8(ascii: "-"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return true
        default:
            return false
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension FeedResponseCheck {
    /// Why `response` cannot be decoded as a JSON page, or nil when it can: a non-2xx status
    /// (unless `acceptErrorStatusJSON`: GraphQL servers answer errors with a JSON body worth
    /// decoding), then `check`.
    static func problem(
        _ response: HTTPResponse, acceptErrorStatusJSON: Bool, redactor: SecretRedactor
    ) -> String? {
        if !response.isSuccess && !acceptErrorStatusJSON {
            let excerpt = FeedText.excerpt(response.body, limit: excerptLength, redactor: redactor)
            return excerpt.isEmpty ? "HTTP \(response.status) with an empty body" : "HTTP \(response.status): \(excerpt)"
        }
        return check(status: response.status, contentType: response.contentType, body: response.body, redactor: redactor)
    }

    /// A decode error as one line, with the status when it was not 2xx.
    static func describe(_ error: any Error, status: Int, redactor: SecretRedactor) -> String {
        let text = redactor.redact("\(error)")
        return (200...299).contains(status) ? text : "HTTP \(status): \(text)"
    }
}
