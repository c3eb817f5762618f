import DemoFeed
import Testing
@testable import FeedCrawlKit

@Suite("Rate limits in the crawler")
struct RateLimitCrawlTests {
    @Test func pacingKeepsWithinTheBudgetSoNoRequestIsRefused() async throws {
        var options = DemoFeedOptions()
        options.hits = 100
        options.rateLimit = 2
        options.rateWindowSeconds = 1
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = TestDirectory()
        // No retries: a single 429 would lose a page.
        let run = try await runCrawl([pixabaySource(feed, pages: 5, perPage: 20)], out: out.path) {
            $0.retries = 0
        }
        let report = try #require(run.report("pixabay"))
        #expect(feed.stats().rateLimited == 0)
        #expect(feed.stats().api == 5)
        #expect(report.failure == nil)
        #expect(report.failedPages == 0)
        #expect(report.pages == 5)
        #expect(run.items("pixabay").count == 100)
        // 5 requests at 2 per window need three windows: at least two waits for a reset.
        #expect(run.report.seconds >= 1.5)
    }

    @Test func tooManyRequestsWaitsAndRetries() async throws {
        var options = DemoFeedOptions()
        options.hits = 20
        options.rateLimit = 1
        options.rateWindowSeconds = 1
        options.retryAfterSeconds = 1
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        // Another client spent this window's budget; the crawler cannot know.
        let earlier = TestDirectory()
        _ = try await runCrawl([pixabaySource(feed, pages: 1, perPage: 20)], out: earlier.path)
        let out = TestDirectory()
        let run = try await runCrawl([pixabaySource(feed, pages: 1, perPage: 20)], out: out.path)
        #expect(feed.stats().rateLimited == 1)
        #expect(feed.stats().api == 3)
        #expect(run.report("pixabay")?.failure == nil)
        #expect(run.items("pixabay").count == 20)
    }

    @Test func gateHoldsRequestsUntilTheWindowResets() async throws {
        let gate = RateLimitGate(clock: { 0 })
        try await gate.acquire()
        gate.received(HTTPResponse(status: 200, headers: [
            HTTPHeader(name: "x-ratelimit-limit", value: "2"),
            HTTPHeader(name: "x-ratelimit-remaining", value: "1"),
            HTTPHeader(name: "x-ratelimit-reset", value: "60"),
        ]))
        try await gate.acquire()  // the last request of the window
        #expect(gate.pacer.delayBeforeNextRequest(now: 0) == 60)
        let waiting = Task { try await gate.acquire() }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(gate.secondsWaited >= 60)
    }
}
