/// What an `HTTPServer` handler answers. The server adds `Date`, framing headers
/// (`Content-Length` / `Transfer-Encoding`) and `Connection: close` when needed, unless the
/// handler supplied them itself (a handler-supplied `Content-Length` or `Transfer-Encoding`
/// is sent as given, with the body bytes written raw — useful to fake broken framing).
public struct ServerResponse: Sendable {
    /// How the body is framed and delivered.
    public enum Body: Sendable {
        /// Whole body with `Content-Length`.
        case bytes([UInt8])
        /// `Transfer-Encoding: chunked`, split into chunks of `chunkSize` bytes (minimum 1).
        case chunked([UInt8], chunkSize: Int)
        /// No length; the connection is closed after the body.
        case closeDelimited([UInt8])
        /// The full `Content-Length` is announced but only the first `sendBytes` bytes are sent, then the connection closes.
        case truncated([UInt8], sendBytes: Int)
        /// `Content-Length` body sent slowly at about `bytesPerSecond` (minimum 1).
        case drip([UInt8], bytesPerSecond: Int)
        /// Headers with `Content-Length: 100000`, then nothing until the client or the server closes.
        case stall
        /// Chunked body of `chunkSize`-byte chunks that never ends (until the client closes or the server stops).
        case endless(chunkSize: Int)
        /// Closes the connection (with a TCP RST, SO_LINGER 0) without sending any response.
        case reset
    }

    /// Status code; default 200.
    public var status: Int
    /// Extra header fields, written in order; default none.
    public var headers: [(name: String, value: String)]
    /// Body; default empty `.bytes`.
    public var body: Body
    /// Milliseconds to wait before sending anything; default 0.
    public var delayMs: Int

    /// Creates a response. Defaults: 200, no extra headers, empty body, no delay.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [],
                body: Body = .bytes([]), delayMs: Int = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delayMs = delayMs
    }

    /// A UTF-8 text response; default status 200, content type `text/plain; charset=utf-8`.
    public static func text(_ s: String, status: Int = 200,
                            contentType: String = "text/plain; charset=utf-8") -> ServerResponse {
        ServerResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(s.utf8)))
    }

    /// A JSON response (`Content-Type: application/json`); default status 200.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> ServerResponse {
        ServerResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(bytes))
    }

    /// Value of the first header named `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// Standard reason phrase for a status code ("Unknown" when not known).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Unknown"
        }
    }
}
