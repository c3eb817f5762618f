import FeedCrawlSupport

/// Why a transfer failed. Non-2xx statuses are not errors; they come back as `HTTPResponse`.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is malformed (or is not absolute).
    case invalidURL(String)
    /// The initial URL or a redirect target is not `http`/`https`.
    case unsupportedScheme(String)
    /// More than 5 redirects.
    case tooManyRedirects
    /// Connect, low-speed or total timeout.
    case timedOut(String)
    /// The body exceeded `HTTPRequest.maxBytes`.
    case bodyTooLarge(limit: Int64)
    /// The body was cut short (connection closed or reset mid-body).
    case partialBody(received: Int64, expected: Int64?)
    /// Refused, DNS failure, empty reply, or send/receive errors before any body byte.
    case connectionFailed(String)
    /// The request body file (`HTTPRequest.bodyFile`) could not be opened or read, or changed
    /// size while it was sent: the path as a path from the working directory, and what went wrong.
    case bodyFile(path: String, problem: String)
    /// The request itself is unusable (e.g. a header containing CR/LF, a GET with a body).
    case invalidRequest(String)
    /// The body came in a `Content-Encoding` libcurl cannot decode (it decodes gzip, deflate,
    /// br and zstd); the value is the header as sent, untrusted.
    case unsupportedContentEncoding(String)
    /// The engine was shut down before the request could start.
    case engineShutDown
    /// `HTTPRequest.addressPolicy` refused the address the transfer would have connected to (or
    /// the address of the connection it would have been sent over): `address` in numeric form,
    /// `rule` saying why (see `AddressPolicy.refusal(of:)`). Nothing was sent to the address.
    case addressRefused(address: String, rule: String)
    /// Any other libcurl failure, with curl's error text.
    case curl(code: Int, message: String)

    /// `true` for failures worth retrying later: `timedOut`, `partialBody`, `connectionFailed`.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .partialBody, .connectionFailed:
            return true
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let why):
            return "invalid URL: \(why)"
        case .unsupportedScheme(let why):
            return "unsupported scheme: \(why)"
        case .tooManyRedirects:
            return "too many redirects"
        case .timedOut(let why):
            return "timed out: \(why)"
        case .bodyTooLarge(let limit):
            return "body larger than \(limit) bytes"
        case .partialBody(let received, let expected):
            if let expected {
                return "body cut short after \(received) of \(expected) bytes"
            }
            return "body cut short after \(received) bytes"
        case .connectionFailed(let why):
            return "connection failed: \(why)"
        case .bodyFile(let path, let problem):
            return "cannot send \(path): \(problem)"
        case .invalidRequest(let why):
            return "invalid request: \(why)"
        case .unsupportedContentEncoding(let name):
            let shown = TerminalText.sanitize(name)
            return "unsupported content encoding '\(shown.count > 40 ? String(shown.prefix(40)) + "…" : shown)' "
                + "(gzip, deflate, br and zstd are decoded)"
        case .engineShutDown:
            return "HTTP engine is shut down"
        case .addressRefused(let address, let rule):
            return "refused \(address): \(rule)"
        case .curl(let code, let message):
            return "libcurl error \(code): \(message)"
        }
    }
}
