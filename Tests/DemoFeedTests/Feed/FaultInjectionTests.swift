import Foundation
import Glibc
import Testing
@testable import DemoFeed

@Suite("Demo feed: faults")
struct FaultInjectionTests {
    @Test func injectedFailuresClearOnRetry() async throws {
        var options = DemoFeedOptions()
        options.failRate = 0.5
        options.seed = 3
        try await withDemoFeed(options: options) { feed in
            var failures = 0
            for page in 1...10 {
                var attempts = 0
                while true {
                    attempts += 1
                    let r = try FeedClient.get(feed, "/api/?key=k&per_page=50&page=\(page)")
                    if r.status == 200 { break }
                    #expect(r.status == 500)
                    #expect(r.text == "injected failure\n")
                    failures += 1
                    try #require(attempts < 30)
                }
            }
            #expect(failures > 0)
            #expect(feed.stats().injectedFailures == failures)
            #expect(feed.stats().serverErrors == failures)
            // /expected and /stats are never faulted.
            #expect(try FeedClient.get(feed, "/expected").status == 200)
            #expect(try FeedClient.get(feed, "/stats").status == 200)
        }
    }

    @Test func failStatus503CarriesRetryAfter() async throws {
        var options = DemoFeedOptions()
        options.failRate = 1
        options.failStatus = 503
        options.retryAfterSeconds = 4
        try await withDemoFeed(options: options) { feed in
            let r = try FeedClient.get(feed, "/img/preview/100000.jpg")
            #expect(r.status == 503)
            #expect(r.header("retry-after") == "4")
        }
    }

    @Test func truncatedImagesAnnounceFullLength() async throws {
        var options = DemoFeedOptions()
        options.truncateRate = 1
        try await withDemoFeed(options: options) { feed in
            let url = try #require(feed.expectedImages.first?.url)
            let c = try RawClient(port: feed.port)
            try c.request("GET", FeedClient.path(of: url, in: feed))
            let head = try c.readHead()
            let announced = try #require(Int(head.header("content-length") ?? ""))
            let received = c.readToEOF()
            #expect(received.count == announced / 2)
            #expect(feed.stats().truncated == 1)
        }
    }

    @Test func latencyDelaysFeedButNotControlRoutes() async throws {
        var options = DemoFeedOptions()
        options.latencyMs = 800
        try await withDemoFeed(options: options) { feed in
            func elapsed(_ target: String) throws -> Double {
                let start = FeedState.monotonicSeconds()
                _ = try FeedClient.get(feed, target)
                return FeedState.monotonicSeconds() - start
            }
            let feedTime = try elapsed("/api/?key=k")
            let statsTime = try elapsed("/stats")
            #expect(feedTime >= 0.79)
            #expect(statsTime < 0.79)
        }
    }

    @Test func overrideIsConsultedFirst() async throws {
        var options = DemoFeedOptions()
        options.override = { req in req.path == "/api/" ? .text("teapot", status: 418) : nil }
        try await withDemoFeed(options: options) { feed in
            let r = try FeedClient.get(feed, "/api/?key=k")
            #expect(r.status == 418)
            #expect(r.text == "teapot")
            #expect(try FeedClient.get(feed, "/img/preview/1.jpg").status == 404)
            #expect(feed.stats().api == 1)
            feed.resetStats()
            #expect(feed.stats() == DemoFeedStats())
        }
    }

    @Test func servesSixteenConcurrentConnections() async throws {
        try await withDemoFeed { feed in
            let paths = feed.expectedImages.prefix(64).map { FeedClient.path(of: $0.url, in: feed) }
            let port = feed.port
            let ok = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        let c = try RawClient(port: port)
                        var n = 0
                        for (i, path) in paths.enumerated() where i % 16 == worker {
                            try c.request("GET", path)
                            if try c.readResponse().status == 200 { n += 1 }
                        }
                        return n
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(ok == paths.count)
            #expect(feed.connectionCount == 16)
        }
    }
}
