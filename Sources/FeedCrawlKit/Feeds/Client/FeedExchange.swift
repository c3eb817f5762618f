import FoundationEssentials
import FeedCrawlHTTP

/// One feed request and what came back, as written to disk by the page cache
/// (`OUT/pages/<source>/<hash>.json`) and by `--record DIR` (`DIR/<source>/<hash>.json`).
///
/// Secrets are removed before anything is stored: the URL loses its `key` parameter, and the
/// request body, the response headers and the response body have every secret masked (`***`).
/// A response body that is valid UTF-8 is kept as text (`body`), anything else as base64
/// (`bodyBase64`). A request that got no HTTP answer (network failure after retries) keeps the
/// error text instead (`error`).
public struct FeedExchange: Codable, Sendable, Equatable {
    /// One response header (name lowercased).
    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// Format version: 1.
    public static let currentVersion = 1

    public var version: Int
    /// Source name.
    public var source: String
    public var request: FeedRequestIdentity
    /// When the answer arrived, in seconds since 1970.
    public var fetchedAt: Double
    /// HTTP status; nil when `error` is set.
    public var status: Int?
    /// The headers that matter (content type, validators, rate limits, Retry-After).
    public var headers: [Header]
    /// The body as text, when it is valid UTF-8.
    public var body: String?
    /// The body as base64, when it is not valid UTF-8.
    public var bodyBase64: String?
    /// Why there was no answer.
    public var error: String?

    /// Response headers worth keeping: content type, validators, rate limits, Retry-After.
    public static let keptHeaderNames: Set<String> = [
        "content-type", "etag", "last-modified", "retry-after",
        "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset",
    ]

    /// Records `response` to `request`, with every secret of `redactor` removed.
    public init(
        source: String, request: FeedRequestIdentity, response: HTTPResponse, redactor: SecretRedactor,
        fetchedAt: Date = Date()
    ) {
        version = Self.currentVersion
        self.source = source
        self.request = request
        self.fetchedAt = fetchedAt.timeIntervalSince1970
        status = response.status
        headers = response.headers.compactMap { field in
            let name = field.name.lowercased()
            guard Self.keptHeaderNames.contains(name) else { return nil }
            return Header(name: name, value: redactor.redact(field.value))
        }
        let bytes = redactor.redact(bytes: response.body)
        if let text = String(validating: bytes, as: UTF8.self) {
            body = text
        } else {
            bodyBase64 = Data(bytes).base64EncodedString()
        }
    }

    /// Records a request that got no answer; `error` must already be free of secrets.
    public init(source: String, request: FeedRequestIdentity, error: String, fetchedAt: Date = Date()) {
        version = Self.currentVersion
        self.source = source
        self.request = request
        self.fetchedAt = fetchedAt.timeIntervalSince1970
        headers = []
        self.error = error
    }

    /// The stored answer as a response (nil when the exchange holds an error or a body that
    /// cannot be decoded).
    public var response: HTTPResponse? {
        guard let status, error == nil else { return nil }
        let bytes: [UInt8]
        if let body {
            bytes = Array(body.utf8)
        } else if let bodyBase64 {
            guard let data = Data(base64Encoded: bodyBase64) else { return nil }
            bytes = Array(data)
        } else {
            bytes = []
        }
        let fields = headers.map { HTTPHeader(name: $0.name, value: $0.value) }
        let retryAfter = headers.last { $0.name == "retry-after" }.flatMap { PushBack.retryAfterSeconds($0.value) }
        return HTTPResponse(
            status: status, headers: fields, body: bytes, effectiveURL: request.url, retryAfterSeconds: retryAfter)
    }

    /// The JSON text written to disk: compact, keys sorted, absent values left out (what
    /// `JSONEncoder` with `.sortedKeys` writes, minus its `\/` escapes). Written by `JSONText`:
    /// `JSONEncoder` escaping a 200-hit page body was a few per cent of a crawl's CPU.
    public func encoded() throws -> [UInt8] {
        var json = JSONText(capacity: (body?.utf8.count ?? bodyBase64?.utf8.count ?? 0) + 1024)
        json.beginObject()
        if let body { json.key("body"); json.string(body) }
        if let bodyBase64 { json.key("bodyBase64"); json.string(bodyBase64) }
        if let error { json.key("error"); json.string(error) }
        json.key("fetchedAt")
        // Swift's shortest round-tripping form is valid JSON for every finite value.
        json.raw(Array((fetchedAt.isFinite ? fetchedAt : 0).description.utf8))
        json.key("headers")
        json.beginArray()
        for header in headers {
            json.element()
            json.beginObject()
            json.key("name"); json.string(header.name)
            json.key("value"); json.string(header.value)
            json.endObject()
        }
        json.endArray()
        json.key("request")
        json.beginObject()
        if let body = request.body { json.key("body"); json.string(body) }
        json.key("method"); json.string(request.method)
        json.key("url"); json.string(request.url)
        json.endObject()
        json.key("source"); json.string(source)
        if let status { json.key("status"); json.int(status) }
        json.key("version"); json.int(version)
        json.endObject()
        return json.bytes
    }

    /// Reads an exchange; throws on anything that is not one. The strict scanner reads it first
    /// (`scannerDecode`: `JSONDecoder` on a kept 200-hit page was 12 % of a warm rerun's CPU);
    /// whatever it does not accept goes to `JSONDecoder`, which decides.
    public static func decode(_ bytes: [UInt8]) throws -> FeedExchange {
        let exchange = try scannerDecode(bytes) ?? foundationDecode(bytes)
        guard exchange.version == currentVersion else {
            throw FeedDecodeError(reason: "unsupported exchange version \(exchange.version)")
        }
        return exchange
    }
}
