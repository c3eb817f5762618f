/// The final response of a completed transfer (after redirects).
///
/// Any status, including 4xx and 5xx, is a response rather than an error.
public struct HTTPResponse: Sendable {
    /// The header names collected by default (lowercased).
    public static let standardHeaderNames: [String] = [
        "content-type", "content-length", "etag", "last-modified", "retry-after", "location",
        "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "content-encoding",
        "transfer-encoding", "date",
    ]

    /// The HTTP status code of the final response.
    public var status: Int
    /// Headers of the final response, names lowercased. By default only `standardHeaderNames`
    /// that were present; every header with `HTTPRequest.allResponseHeaders`.
    public var headers: [HTTPHeader]
    /// Memory destination: the body. Sink destination: empty for 2xx (the body is in the sink);
    /// for other statuses the first ≤ 4 KiB of the body, as an error excerpt.
    public var body: [UInt8]
    /// Body bytes delivered (decoded), including bytes not kept in an error excerpt.
    public var bytesReceived: Int64
    /// The URL of the final response.
    public var effectiveURL: String
    /// How many redirects were followed.
    public var redirectCount: Int
    /// `Retry-After` in seconds (numeric or HTTP-date form), if present.
    public var retryAfterSeconds: Int?
    /// The `Content-Type` header, e.g. `"application/json; charset=utf-8"`.
    public var contentType: String?
    /// The `ETag` header as sent (weak tags keep their `W/` prefix).
    public var etag: String?
    /// The `Last-Modified` header as sent.
    public var lastModified: String?
    /// The `Content-Length` header as sent, if present and numeric.
    public var contentLength: Int64?
    /// The address the final response came from (`CURLINFO_PRIMARY_IP`), when known.
    public var primaryIP: String?
    /// The HTTP version of the final response (`1.0`, `1.1`, `2`, `3`; 0 when unknown).
    public var httpVersion: Double = 0
    /// The `Content-Encoding` header, if present and not `identity`: the body was decoded from it
    /// (`HTTPRequest.acceptEncoding`), and `contentLength` counts the encoded bytes.
    public var contentEncoding: String? {
        guard let value = header("content-encoding") else { return nil }
        let trimmed = String(value.trimmingASCIIWhitespace())
        return trimmed.isEmpty || asciiCaseInsensitiveEqual(trimmed, "identity") ? nil : trimmed
    }

    /// Whether the transport knew where the body ends: a `Content-Length`, chunked transfer
    /// coding, or HTTP/2 and later (framed streams). libcurl fails a transfer whose delimited
    /// body ends early, so only an undelimited body (HTTP/1.x ended by closing the connection)
    /// can arrive cut short without an error.
    public var isBodyDelimited: Bool {
        if contentLength != nil || httpVersion >= 2 { return true }
        guard let coding = header("transfer-encoding") else { return false }
        return coding.lowercased().contains("chunked")
    }

    /// Creates a response (the engine builds these; public for tests of callers). `contentType`,
    /// `etag`, `lastModified` and `contentLength` are taken from `headers`.
    public init(
        status: Int,
        headers: [HTTPHeader] = [],
        body: [UInt8] = [],
        bytesReceived: Int64? = nil,
        effectiveURL: String = "",
        redirectCount: Int = 0,
        retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bytesReceived = bytesReceived ?? Int64(body.count)
        self.effectiveURL = effectiveURL
        self.redirectCount = redirectCount
        self.retryAfterSeconds = retryAfterSeconds
        self.contentType = header("content-type")
        self.etag = header("etag")
        self.lastModified = header("last-modified")
        if let v = header("content-length"), let n = Int64(v), n >= 0 {
            self.contentLength = n
        }
    }

    /// The first header named `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        for h in headers where h.name.utf8.count == name.utf8.count {
            if asciiCaseInsensitiveEqual(h.name, name) { return h.value }
        }
        return nil
    }

    /// `true` for statuses 200–299.
    public var isSuccess: Bool { (200...299).contains(status) }
}

/// ASCII case-insensitive comparison without allocating.
func asciiCaseInsensitiveEqual(_ a: String, _ b: String) -> Bool {
    var ia = a.utf8.makeIterator()
    var ib = b.utf8.makeIterator()
    while true {
        switch (ia.next(), ib.next()) {
        case (nil, nil):
            return true
        case let (x?, y?):
            if x == y { continue }
            let lx = (x >= 65 && x <= 90) ? x | 0x20 : x
            let ly = (y >= 65 && y <= 90) ? y | 0x20 : y
            if lx != ly { return false }
        default:
            return false
        }
    }
}
