@testable import DemoFeed
@testable import FeedCrawlKit
import FuzzSupport

/// libFuzzer entry point for the small text parsers that see server- or user-supplied header
/// values and URLs: response headers (`Content-Type`, `Content-Length`, `Retry-After`,
/// `X-RateLimit-*`), URL checks, `--ttl`/`--max-image-bytes` values, and the demo server's
/// request-head parser. The input is split at NUL bytes into one field per parser.
/// (`@testable` reaches internal parsers; scripts/fuzz builds with `-enable-testing`.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput.bytes(data, size)
    let f = FuzzInput.fields(bytes, count: 8)

    // Response headers as the engine hands them over.
    let response = HTTPResponse(status: 200, headers: [
        HTTPHeader(name: "content-type", value: f[0]), HTTPHeader(name: "content-length", value: f[1]),
        HTTPHeader(name: "etag", value: f[2]), HTTPHeader(name: "retry-after", value: f[3]),
    ])
    if let length = response.contentLength { FuzzInput.check(length >= 0, "negative content length") }
    _ = ImageValidation.checkHeaders(status: 200, contentType: f[0], contentLength: response.contentLength)
    let type = ImageValidation.mediaType(f[0])
    FuzzInput.check(!type.contains(";") && !type.contains(" "), "media type \(type.debugDescription)")
    _ = FeedResponseCheck.check(status: 200, contentType: f[0], body: Array(f[4].utf8))

    // Rate-limit and Retry-After headers.
    var pacer = RateLimitPacer()
    pacer.requestStarted(now: 1000)
    pacer.responseReceived(status: 429, limit: f[1], remaining: f[2], reset: f[3], retryAfter: f[3], now: 1000)
    let delay = pacer.delayBeforeNextRequest(now: 1000)
    FuzzInput.check(delay.isFinite && delay >= 0 && delay <= pacer.maxDelay, "delay \(delay)")

    // URLs from feeds and from the command line.
    let url = f[5]
    if (try? HTTPRequest.validateURL(url)) != nil {
        let lower = url.lowercased()
        FuzzInput.check(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "accepted \(url.debugDescription)")
    }
    if URLCheck.isHTTP(url) {
        let host = URLCheck.host(of: url)
        FuzzInput.check(!host.contains("/"), "host \(host.debugDescription)")
    }

    // Option values.
    if let seconds = try? DurationParser.parse(f[6]) {
        FuzzInput.check(seconds.isFinite && seconds >= 0 && seconds <= DurationParser.maximumSeconds, "duration \(seconds)")
        _ = DurationParser.format(seconds)
    }
    if let size = try? ByteSize.parse(f[6]) {
        FuzzInput.check(size >= 0, "size \(size)")
        _ = ByteSize.format(size)
    }

    // The demo server's request parser (it reads raw bytes from sockets).
    let head = Array(f[7].utf8)
    if let end = RequestParser.headEnd(in: head) {
        FuzzInput.check(end <= head.count, "head end past the buffer")
        if let parsed = try? RequestParser.parseHead(head[..<end]) {
            _ = RequestParser.splitTarget(parsed.target)
        }
    }
    _ = RequestParser.splitTarget(f[7])
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzHeaders) }
}
#endif
