import FeedCrawlSupport

// Internal parsers are reached with @testable, which needs a module built for testing: debug
// builds are (scripts/fuzz builds debug); a release build skips those checks.
#if DEBUG
@testable import DemoFeed
@testable import FeedCrawlHTTP
@testable import FeedCrawlKit
#else
import FeedCrawlHTTP
import FeedCrawlKit
#endif

extension FuzzChecks {
    /// The small text parsers that see server- or user-supplied values: response headers
    /// (`Content-Type`, `Content-Length`, `Retry-After`, `X-RateLimit-*`), URL checks,
    /// `--ttl`/`--max-image-bytes` values, the demo server's request-head parser. The input is
    /// split at NUL bytes into one field per parser.
    public static func headers(_ bytes: [UInt8]) -> [String] {
        var v = FuzzViolations()
        let f = FuzzInput.fields(bytes, count: 8)

        let response = HTTPResponse(status: 200, headers: [
            HTTPHeader(name: "content-type", value: f[0]), HTTPHeader(name: "content-length", value: f[1]),
            HTTPHeader(name: "etag", value: f[2]), HTTPHeader(name: "retry-after", value: f[3]),
        ])
        if let length = response.contentLength { v.check(length >= 0, "negative content length") }
        _ = ImageValidation.checkHeaders(status: 200, contentType: f[0], contentLength: response.contentLength)
        let type = ImageValidation.mediaType(f[0])
        v.check(!type.contains(";") && !type.contains(" "), "media type \(type.debugDescription)")
        _ = FeedResponseCheck.check(status: 200, contentType: f[0], body: Array(f[4].utf8))

        var pacer = RateLimitPacer()
        pacer.requestStarted(now: 1000)
        pacer.responseReceived(
            status: 429, headers: [("x-ratelimit-limit", f[1]), ("x-ratelimit-remaining", f[2]), ("x-ratelimit-reset", f[3]),
                                   ("retry-after", f[3])], now: 1000)
        let delay = pacer.delayBeforeNextRequest(now: 1000)
        v.check(delay.isFinite && delay >= 0 && delay <= pacer.maxDelay, "delay \(delay)")

        if let seconds = try? DurationParser.parse(f[6]) {
            v.check(seconds.isFinite && seconds >= 0 && seconds <= DurationParser.maximumSeconds, "duration \(seconds)")
            _ = DurationParser.format(seconds)
        }
        if let size = try? ByteSize.parse(f[6]) {
            v.check(size >= 0, "size \(size)")
            _ = ByteSize.format(size)
        }
        #if DEBUG
        let url = f[5]
        if (try? HTTPRequest.validateURL(url)) != nil {
            v.check(FuzzInput.hasHTTPScheme(url), "accepted \(url.debugDescription)")
        }
        if URLCheck.isHTTP(url) {
            v.check(!URLCheck.host(of: url).contains("/"), "host of \(url.debugDescription)")
            v.check(URLCheck.problem(url) == nil, "isHTTP and problem disagree")
        } else {
            v.check(URLCheck.problem(url) != nil, "no reason for refusing \(url.debugDescription)")
        }
        let head = Array(f[7].utf8)
        if let end = RequestParser.headEnd(in: head) {
            v.check(end <= head.count, "head end past the buffer")
            if let parsed = try? RequestParser.parseHead(head[..<end]) {
                _ = RequestParser.splitTarget(parsed.target)
            }
        }
        _ = RequestParser.splitTarget(f[7])
        #endif
        return v.messages
    }
}
