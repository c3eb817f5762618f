import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP
@testable import FeedCrawlStorage

/// The one request policy: the limits it puts on each attempt, and the deadline bounding them.
@Suite("RequestPolicy")
struct RequestPolicyTests {
    @Test func withoutADeadlineEachAttemptGetsTheOptionsLimits() {
        let policy = RequestPolicy(connectTimeoutMs: 3_000, lowSpeedTimeSeconds: 7, totalTimeoutMs: 90_000)
        var request = HTTPRequest(url: "http://127.0.0.1/")
        policy.apply(to: &request)
        #expect(request.connectTimeoutMs == 3_000)
        #expect(request.lowSpeedTimeSeconds == 7)
        #expect(request.totalTimeoutMs == 90_000)
    }

    @Test func beforeTheDeadlineAnAttemptEndsSoonAfterIt() {
        let now = ContinuousClock.now
        let policy = RequestPolicy(retry: RetryPolicy(deadline: now + .seconds(5)), connectTimeoutMs: 10_000)
        var request = HTTPRequest(url: "http://127.0.0.1/")
        policy.apply(to: &request, now: now)
        #expect(request.totalTimeoutMs == 5_000 + RequestPolicy.deadlineGraceMs)
        #expect(request.connectTimeoutMs == 7_000)
        // A --max-time shorter than what is left stays.
        let short = RequestPolicy(retry: RetryPolicy(deadline: now + .seconds(60)), totalTimeoutMs: 1_000)
        short.apply(to: &request, now: now)
        #expect(request.totalTimeoutMs == 1_000)
    }

    @Test func afterTheDeadlineTheClosingRequestsGetTheOptionsLimitsOnly() {
        let now = ContinuousClock.now
        let policy = RequestPolicy(retry: RetryPolicy(deadline: now - .seconds(1)), totalTimeoutMs: nil)
        var request = HTTPRequest(url: "http://127.0.0.1/")
        policy.apply(to: &request, now: now)
        #expect(request.totalTimeoutMs == nil)
        #expect(request.connectTimeoutMs == 10_000)
    }

    @Test func oneRuleOfWhatIsWorthRetrying() {
        for status in [500, 502, 503, 504, 408, 429] { #expect(RequestPolicy.isTransient(status: status)) }
        for status in [200, 304, 400, 401, 403, 404, 412] { #expect(!RequestPolicy.isTransient(status: status)) }
        // The store's own codes and statuses agree with it.
        #expect(S3Error(operation: "GET", key: "k", status: 408, message: "").isRetryable)
        #expect(!S3Error(operation: "GET", key: "k", status: 404, message: "").isRetryable)
    }
}
