import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
@testable import FeedCrawlHTTP

// Not among the serialized CrawlerTests: these mostly wait for rate-limit windows.
@Suite("Rate limits in the crawler")
struct RateLimitCrawlTests {
    @Test func pacingKeepsWithinTheBudgetSoNoRequestIsRefused() async throws {
        var options = DemoFeedOptions()
        options.hits = 15
        options.rateLimit = 2
        options.rateWindowSeconds = 1
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = CrawlDirectory()
        // No retries: a single 429 would lose a page.
        let run = try await runCrawl([pixabaySource(feed, pages: 5, perPage: 3)], out: out.path) {
            $0.retries = 0
        }
        let report = try #require(run.report("pixabay"))
        #expect(feed.stats().rateLimited == 0)
        #expect(feed.stats().api == 5)
        #expect(report.failure == nil)
        #expect(report.failedPages == 0)
        #expect(report.pages == 5)
        #expect(run.items("pixabay").count == 15)
        // 5 requests at 2 per window need three windows: at least two waits for a reset.
        #expect(run.report.seconds >= 1.5)
    }

    @Test func sourcesSharingAKeyAndHostShareOneBudget() async throws {
        var options = DemoFeedOptions()
        options.hits = 15
        options.rateLimit = 2
        options.rateWindowSeconds = 1
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = CrawlDirectory()
        // Two sources, one key: the server counts their requests in one window. Each paced on
        // its own would spend the budget twice over and be refused.
        let sources = ["first", "second"].map { name -> SourceConfiguration in
            var config = PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, pages: 5, perPage: 3)
            config.name = name
            config.pageTTL = 0
            config.pageConcurrency = 4
            return .pixabay(config)
        }
        let run = try await runCrawl(sources, out: out.path) { $0.retries = 0 }
        #expect(feed.stats().rateLimited == 0)
        #expect(feed.stats().api == 10)
        for name in ["first", "second"] {
            let report = try #require(run.report(name))
            #expect(report.failure == nil, "\(name): \(report.failure ?? "")")
            #expect(report.failedPages == 0, "\(name): \(report.warnings)")
            #expect(report.pages == 5)
            #expect(run.items(name).count == 15)
        }
        // 10 requests at 2 per window need five windows: at least four waits for a reset.
        #expect(run.report.seconds >= 3.5)
    }

    @Test func tooManyRequestsWaitsForRetryAfterAndRetries() async throws {
        // Another client spent the budget: the first answer is a 429 that asks for 1 s.
        let refused = Locked(false)
        var options = DemoFeedOptions.observing(RequestLog()) { request in
            guard request.path == "/api/", refused.withLock({ let done = $0; $0 = true; return !done }) else { return nil }
            var response = ServerResponse.text("API rate limit exceeded", status: 429)
            response.headers += [("Retry-After", "1"), ("X-RateLimit-Limit", "100"),
                                 ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1")]
            return response
        }
        options.hits = 5
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = CrawlDirectory()
        let run = try await runCrawl([pixabaySource(feed, pages: 1, perPage: 5)], out: out.path)
        #expect(feed.stats().rateLimited == 1)
        #expect(feed.stats().api == 2)
        #expect(run.report("pixabay")?.failure == nil)
        #expect(run.items("pixabay").count == 5)
        #expect(run.report.seconds >= 0.95)  // Retry-After was honoured, not the 10 ms backoff
    }

    @Test func gateHoldsRequestsUntilTheWindowResets() async throws {
        let gate = RateLimitGate(clock: { 0 })
        try await gate.acquire(source: "s")
        gate.received(HTTPResponse(status: 200, headers: [
            HTTPHeader(name: "x-ratelimit-limit", value: "2"),
            HTTPHeader(name: "x-ratelimit-remaining", value: "1"),
            HTTPHeader(name: "x-ratelimit-reset", value: "60"),
        ]))
        try await gate.acquire(source: "s")  // the last request of the window
        #expect(gate.state.delayBeforeNextRequest(now: 0) == 60)
        let admitted = Locked(false)
        let waiting = Task {
            try await gate.acquire(source: "s")
            admitted.withLock { $0 = true }
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(!admitted.withLock { $0 }, "the third request was held back")
        // The clock never moved: the budget is still spent.
        #expect(gate.state.delayBeforeNextRequest(now: 0) == 60)
    }
}
