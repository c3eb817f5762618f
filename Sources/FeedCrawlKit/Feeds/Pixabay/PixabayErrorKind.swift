/// What a Pixabay error response means. Pixabay answers errors with plain text such as
/// `[ERROR 400] Invalid API key. Note: This value is case-sensitive.`; a bad key is 400, not 401.
public enum PixabayErrorKind: Sendable, Equatable {
    /// 4xx whose body contains "Invalid API key" (case-insensitive). Stop the run.
    case invalidKey
    /// 400 whose body contains `"page" is out of valid range` (case-insensitive): past the last page.
    case pageOutOfRange
    /// 429 Too Many Requests ("API rate limit exceeded"). Wait, then retry.
    case rateLimited
    /// Anything else: the body as one trimmed line (control characters collapsed, at most
    /// `maxMessageLength` characters, secrets redacted), or `"HTTP <status> with an empty body"`.
    case other(String)

    /// Longest message kept in `.other`: 200 characters.
    public static let maxMessageLength = 200

    /// Classifies an error response by status and body text.
    public static func classify(
        status: Int,
        body: [UInt8],
        redactor: SecretRedactor = SecretRedactor(secrets: [])
    ) -> PixabayErrorKind {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        let lower = text.lowercased()
        if status == 429 { return .rateLimited }
        if (400...499).contains(status), lower.contains("invalid api key") { return .invalidKey }
        if status == 400, lower.contains("\"page\" is out of valid range") { return .pageOutOfRange }
        let message = FeedText.excerpt(body, limit: maxMessageLength, redactor: redactor)
        return .other(message.isEmpty ? "HTTP \(status) with an empty body" : message)
    }
}
