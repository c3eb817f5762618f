import FeedCrawlSupport
import FeedCrawlHTTP

/// A feed request as it may be written down: method, URL with the `key` parameter removed and
/// secrets masked, and the body with secrets masked. Its `hash` names the request's files in
/// the page cache and in recordings, so no file name carries URL text or a secret.
public struct FeedRequestIdentity: Sendable, Hashable, Codable {
    /// `GET` or `POST`.
    public var method: String
    /// The URL without its `key` parameter, other secrets masked.
    public var url: String
    /// The request body (UTF-8, secrets masked), nil for GET.
    public var body: String?

    /// The identity of `request` with `redactor`'s secrets removed.
    public init(_ request: HTTPRequest, redactor: SecretRedactor) {
        method = request.method.rawValue
        url = redactor.redactURL(request.url)
        body = request.body.map { redactor.redact(String(decoding: $0, as: UTF8.self)) }
    }

    /// Creates an identity from its parts (as read back from a file).
    public init(method: String, url: String, body: String?) {
        self.method = method
        self.url = url
        self.body = body
    }

    /// Lowercase hex SHA-256 of `method`, `url` and `body`: the file name stem.
    public var hash: String {
        SHA256.hex(method + " " + url + "\n" + (body ?? ""))
    }

    /// `GET <url>` or `POST <url>`, for messages.
    public var shown: String { method + " " + url }
}
