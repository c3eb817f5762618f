import CCurl
import FeedCrawlSupport
import Glibc

/// The one rule that reads an HTTP answer as push-back (the server limiting how fast it is asked),
/// for every caller that paces itself: the image pipeline's hosts (`HostThrottle`, through
/// `ImagePipeline.conclude`) and a store's saves (`StorePacer`, `PacedBackend`).
///
/// - 429 (Too Many Requests) and 503 (Service Unavailable, S3's `SlowDown`) are push-back,
///   whether or not they say how long to wait: the host is asked fewer requests at once, spaced.
/// - `Retry-After` says how long: delta-seconds (`120`) or an HTTP date
///   (`Wed, 21 Oct 2015 07:28:00 GMT`, counted from now), at most `maxRetryAfter`. A value that
///   is neither, negative, or a date already past says nothing (nil).
/// - Every other status is an answer the server kept up with (not push-back).
///
/// What a caller does with the wait (retry after it, `RetryPolicy.decide`) and how many retries a
/// push-back costs are the caller's; whether an answer is push-back, and how long it asked, are
/// decided here only.
package struct PushBack: Sendable, Equatable {
    /// The status that pushed back: 429 or 503.
    package var status: Int
    /// Seconds the server asked to wait (`Retry-After`), at most `maxRetryAfter`; nil when it did
    /// not say.
    package var retryAfter: Int?

    /// The longest `Retry-After` read, in seconds: one day. A longer one reads as a day (longer
    /// than any wait a run honours: `--max-retry-wait` then gives up, naming it).
    package static let maxRetryAfter = 86_400

    /// The push-back an answer with `status` and `Retry-After` (already in seconds) is, or nil.
    package static func read(status: Int, retryAfter: Int?) -> PushBack? {
        guard status == 429 || status == 503 else { return nil }
        return PushBack(status: status, retryAfter: retryAfter.map { min(max(0, $0), maxRetryAfter) })
    }

    /// The push-back `response` is, or nil (its `Retry-After` was read by `retryAfterSeconds`).
    package static func read(_ response: HTTPResponse) -> PushBack? {
        read(status: response.status, retryAfter: response.retryAfterSeconds)
    }

    /// The push-back an answer with `status` and these headers (names in any case) is, or nil.
    package static func read(status: Int, headers: [(name: String, value: String)], now: time_t = time(nil)) -> PushBack? {
        guard status == 429 || status == 503 else { return nil }
        let value = headers.last { $0.name.lowercased() == "retry-after" }?.value
        return read(status: status, retryAfter: value.flatMap { retryAfterSeconds($0, now: now) })
    }

    /// A `Retry-After` value in seconds: delta-seconds as they are, an HTTP date as the seconds
    /// from `now` (default: the system clock) until it; at most `maxRetryAfter`. Nil when the
    /// value is neither, negative, or a date not in the future.
    package static func retryAfterSeconds(_ value: String, now: time_t = time(nil)) -> Int? {
        let text = String(value.trimmingASCIIWhitespace())
        if !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // Digits only: delta-seconds (so many digits that Int overflows: the cap).
            return min(Int(text) ?? maxRetryAfter, maxRetryAfter)
        }
        var reference = now
        let date = curl_getdate(text, &reference)
        guard date > now else { return nil }
        return Int(min(Int64(date) - Int64(now), Int64(maxRetryAfter)))
    }
}
