import Testing
@testable import FeedCrawlHTTP

/// The one push-back rule: which answers push back, and how long `Retry-After` asks for.
@Suite("PushBack")
struct PushBackTests {
    @Test func fourTwentyNineAndFiveOhThreePushBackWithOrWithoutAWait() {
        #expect(PushBack.read(status: 429, retryAfter: nil) == PushBack(status: 429, retryAfter: nil))
        #expect(PushBack.read(status: 503, retryAfter: 5) == PushBack(status: 503, retryAfter: 5))
        #expect(PushBack.read(status: 503, retryAfter: 10_000_000)?.retryAfter == PushBack.maxRetryAfter)
        for status in [200, 304, 404, 408, 500, 502, 504] {
            #expect(PushBack.read(status: status, retryAfter: 5) == nil, "\(status)")
        }
        #expect(PushBack.read(status: 503, headers: [("retry-AFTER", "7")])?.retryAfter == 7)
        #expect(PushBack.read(status: 429, headers: [("X-RateLimit-Reset", "30")]) == PushBack(status: 429, retryAfter: nil))
        #expect(PushBack.read(HTTPResponse(status: 503, retryAfterSeconds: 2)) == PushBack(status: 503, retryAfter: 2))
    }

    @Test func retryAfterIsSecondsOrAnHTTPDateCapped() {
        let now = 1_445_412_480 - 90  // 90 s before Wed, 21 Oct 2015 07:28:00 GMT
        #expect(PushBack.retryAfterSeconds("120", now: now) == 120)
        #expect(PushBack.retryAfterSeconds(" 0 ", now: now) == 0)
        #expect(PushBack.retryAfterSeconds("99999999999999999999999", now: now) == PushBack.maxRetryAfter)
        #expect(PushBack.retryAfterSeconds("172800", now: now) == PushBack.maxRetryAfter)
        #expect(PushBack.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == 90)
        #expect(PushBack.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", now: now + 90) == nil, "a date now says nothing")
        #expect(PushBack.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", now: now - 200_000) == PushBack.maxRetryAfter)
        for nonsense in ["-5", "soon", "", "1.5"] {
            #expect(PushBack.retryAfterSeconds(nonsense, now: now) == nil, "\(nonsense)")
        }
    }
}
