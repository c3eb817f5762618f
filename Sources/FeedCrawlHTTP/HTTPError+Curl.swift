import CCurl
import Glibc

extension HTTPError {
    /// Maps a failed transfer to an `HTTPError` (what a callback recorded, `Transfer.recordedFailure`, wins).
    ///
    /// - Parameters:
    ///   - curlCode: the transfer's `CURLcode` (not `CURLE_OK`).
    ///   - message: curl's error-buffer text (or `curl_easy_strerror`).
    ///   - bytesReceived: body bytes delivered so far.
    ///   - expected: the announced body length, if any.
    ///   - maxBytes: the request's body cap.
    static func fromCurl(
        code curlCode: UInt32,
        message: String,
        bytesReceived: Int64,
        expected: Int64?,
        maxBytes: Int64
    ) -> HTTPError {
        switch curlCode {
        case CURLE_UNSUPPORTED_PROTOCOL.rawValue where message.contains("HTTP/0.9"):
            // Not a scheme: the answer did not start with a status line. On a reused connection
            // that is what a server that sent more than its Content-Length before (rclone serving
            // an object while it is rewritten in place) leaves behind: a connection failure,
            // tried again like one.
            return .connectionFailed(message)
        case CURLE_UNSUPPORTED_PROTOCOL.rawValue:
            return .unsupportedScheme(message)
        case CURLE_URL_MALFORMAT.rawValue:
            return .invalidURL(message)
        case CURLE_SETOPT_OPTION_SYNTAX.rawValue:
            return .invalidRequest(message)
        case CURLE_TOO_MANY_REDIRECTS.rawValue:
            return .tooManyRedirects
        case CURLE_OPERATION_TIMEDOUT.rawValue:
            return .timedOut(message)
        case CURLE_FILESIZE_EXCEEDED.rawValue:
            return .bodyTooLarge(limit: maxBytes)
        case CURLE_PARTIAL_FILE.rawValue:
            return .partialBody(received: bytesReceived, expected: expected)
        case CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue,
             CURLE_COULDNT_CONNECT.rawValue, CURLE_GOT_NOTHING.rawValue,
             CURLE_SSL_CONNECT_ERROR.rawValue:
            return .connectionFailed(message)
        case CURLE_RECV_ERROR.rawValue, CURLE_SEND_ERROR.rawValue,
             CURLE_HTTP2.rawValue, CURLE_HTTP2_STREAM.rawValue:
            if bytesReceived > 0 {
                return .partialBody(received: bytesReceived, expected: expected)
            }
            return .connectionFailed(message)
        default:
            return .curl(code: Int(curlCode), message: message)
        }
    }
}

/// `strerror` text for an errno value.
func errnoDescription(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}
