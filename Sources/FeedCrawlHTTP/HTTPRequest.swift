/// A single HTTP transfer to run on an `HTTPEngine`.
///
/// Only `http` and `https` URLs are accepted, for the initial request and for every redirect.
public struct HTTPRequest: Sendable {
    /// The request method.
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        /// A PUT with `body` (sent as a POST sends its body) or with `bodyFile` (streamed from
        /// the file).
        case put = "PUT"
        /// A HEAD: the status and headers of the response, no body.
        case head = "HEAD"
        /// A DELETE, without a body.
        case delete = "DELETE"
    }

    /// Where the response body goes.
    public enum Destination: Sendable {
        /// Collected into `HTTPResponse.body`.
        case memory
        /// Streamed into the `BodySink` the factory makes at the first body byte of a 2xx
        /// response (at the end of an empty one), so a 304 or 404 makes none and keeps only an
        /// error excerpt in `HTTPResponse.body`. A factory error fails the transfer with it.
        case sink(@Sendable () throws -> any BodySink)
    }

    /// The absolute `http://` or `https://` URL.
    public var url: String
    /// The method. Default `.get`.
    public var method: Method = .get
    /// Extra request headers, sent as given. Default none. Names and values must not contain CR or LF.
    public var headers: [HTTPHeader] = []
    /// The POST or PUT body (sent as-is; set a `Content-Type` header yourself). Default `nil`
    /// (an empty body for POST and PUT). Must be `nil` for GET.
    public var body: [UInt8]? = nil
    /// A PUT body streamed from the file at this path (a relative path from the working
    /// directory), never read whole into memory: its length, taken with `fstat` when the request
    /// starts, goes out as `Content-Length`. A file that cannot be opened fails the request with
    /// `HTTPError.bodyFile` before anything is sent. Only for PUT, and not together with `body`.
    /// Default `nil`.
    public var bodyFile: String? = nil
    /// Sign the request with AWS Signature Version 4 (libcurl's `CURLOPT_AWS_SIGV4`), with these
    /// credentials. Every request header is signed. Default `nil` (not signed).
    public var awsSigV4: AWSSigV4? = nil
    /// Where the body goes. Default `.memory`.
    public var destination: Destination = .memory
    /// The body cap in decoded bytes. Exceeding it fails with `HTTPError.bodyTooLarge`. Default 10 MiB.
    public var maxBytes: Int64 = 10 << 20
    /// `true` asks for compressed transfer (`Accept-Encoding: deflate, gzip, br, zstd`) and decodes
    /// whatever `Content-Encoding` of these the body comes in (an unknown one fails with
    /// `HTTPError.unsupportedContentEncoding`); `maxBytes` and the sink count decoded bytes.
    /// `false` sends no `Accept-Encoding` and leaves the body as sent. Default `false`.
    public var acceptEncoding: Bool = false
    /// Connect timeout (DNS + TCP + TLS) in milliseconds. Default 10 000.
    public var connectTimeoutMs: Int = 10_000
    /// The transfer fails with `HTTPError.timedOut` when it is slower than `lowSpeedLimit` bytes per
    /// second for `lowSpeedTimeSeconds` seconds. Defaults 1024 B/s for 15 s.
    public var lowSpeedLimit: Int = 1024
    /// See `lowSpeedLimit`. Default 15.
    public var lowSpeedTimeSeconds: Int = 15
    /// A cap on the whole transfer in milliseconds. Default `nil` (no cap).
    public var totalTimeoutMs: Int? = nil
    /// `true` returns every header of the final response in `HTTPResponse.headers`; `false`
    /// (default) returns only `HTTPResponse.standardHeaderNames`, which is cheaper.
    public var allResponseHeaders: Bool = false
    /// Which addresses the transfer may connect to, checked for every address tried, every
    /// redirect and every reused connection; a refused one fails the transfer with
    /// `HTTPError.addressRefused` before anything is sent to it. Default `.any` (no check).
    public var addressPolicy: AddressPolicy = .any
    /// Name overrides like curl's `--resolve`: each entry `HOST:PORT:ADDRESS[,ADDRESS]…` (IPv6
    /// addresses in brackets) makes connections to `HOST:PORT`, on redirects too, go to those
    /// addresses without asking DNS. Scoped to this request: the entries go into a DNS cache of
    /// the transfer's own, so other requests on the engine still resolve `HOST` as usual (and
    /// this one resolves other names without the engine's cache). libcurl matches idle connections
    /// by name and port, not address, so an idle connection to `HOST:PORT` that another request
    /// opened may still carry this one (`addressPolicy` checks its address all the same). A
    /// malformed entry fails the transfer with `HTTPError.invalidRequest`. Default none.
    public var resolve: [String] = []

    /// Creates a request; other properties take their defaults.
    public init(
        url: String,
        method: Method = .get,
        headers: [HTTPHeader] = [],
        body: [UInt8]? = nil,
        destination: Destination = .memory
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.destination = destination
    }
}
