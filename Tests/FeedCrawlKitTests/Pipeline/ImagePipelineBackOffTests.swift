import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
@testable import FeedCrawlHTTP

/// A host that limits its rate without saying so (503 without `Retry-After`, as nginx's
/// `limit_req` does) is slowed down by the pipeline's `HostThrottle`, and only that host.
@Suite("ImagePipeline back-off", .serialized)
struct ImagePipelineBackOffTests {
    /// nginx `limit_req rate=2r/s` with no burst: a request less than 0.5 s after the last one
    /// it let through is refused with 503.
    final class RateLimit: @unchecked Sendable {
        private let lock = Lock()
        private var last: ContinuousClock.Instant?
        private(set) var refused = 0

        func admit() -> Bool {
            lock.withLock {
                let now = ContinuousClock.now
                if let last, now - last < .milliseconds(500) {
                    refused += 1
                    return false
                }
                last = now
                return true
            }
        }

        var refusals: Int { lock.withLock { refused } }
    }

    @Test func aHostAllowingTwoRequestsASecondGetsEveryImageWithTheDefaults() async throws {
        let limit = RateLimit()
        var settings = ImagePipeline.Settings()  // the command line's defaults: 16, 8 per host, 3 retries
        settings.policy.retry = RetryPolicy()
        settings.privateAddresses = PrivateAddressScope(allowed: true)
        let harness = try PipelineHarness(settings: settings) { request in
            limit.admit() ? PipelineImages.serve(request.path) : .text("<html>503 Service Temporarily Unavailable</html>", status: 503)
        }
        let items = (0..<24).map { harness.item("i\($0)", [("image", "/img/\($0).png")]) }
        _ = await harness.pipeline.submit(items, group: 0)
        let recorded = try await harness.finish()
        let downloaded = recorded.values.filter { $0.status == .downloaded }.count
        #expect(downloaded == 24, "\(recorded.values.filter { $0.status != .downloaded }.map { "\($0.id): \($0.soleImage?.error ?? "")" })")
        #expect(limit.refusals > 0, "the server never refused: the test proves nothing")
        let slowed = harness.events.compactMap { event -> (String, Int, Double)? in
            if case .hostSlowed(let host, let concurrency, let interval, let status) = event {
                #expect(status == 503)
                return (host, concurrency, interval)
            }
            return nil
        }
        #expect(!slowed.isEmpty, "the run did not say the host was slowed")
        #expect(slowed.first?.0 == "127.0.0.1")
        #expect(slowed.first?.1 == 4)
    }

    @Test func anotherHostIsNotSlowed() async throws {
        // Two hosts on one server: 127.0.0.1 refuses everything once, localhost never.
        let seen = Locked<Set<String>>([])
        let harness = try PipelineHarness { request in
            let host = request.header("host") ?? ""
            if host.hasPrefix("127.0.0.1"), seen.withLock({ $0.insert(request.path).inserted }) {
                return .text("busy", status: 429)
            }
            return PipelineImages.serve(request.path)
        }
        let other = "http://localhost:\(harness.server.port)"
        var items = (0..<4).map { harness.item("a\($0)", [("image", "/a/\($0).png")]) }
        items += (0..<4).map { FeedItem(source: "s", id: "b\($0)", page: 1, title: "b",
                                        images: [FeedImage(variant: "image", url: other + "/b/\($0).png")]) }
        _ = await harness.pipeline.submit(items, group: 0)
        let recorded = try await harness.finish()
        #expect(recorded.values.allSatisfy { $0.status == .downloaded })
        let hosts = harness.events.compactMap { event -> String? in
            if case .hostSlowed(let host, _, _, _) = event { return host }
            return nil
        }
        // Requests sent after a decrease may decrease again; only the pushing host is named.
        #expect(!hosts.isEmpty && hosts.allSatisfy { $0 == "127.0.0.1" }, "\(hosts)")
        #expect(harness.pipeline.lock.withLock { harness.pipeline.throttle.state("localhost") }
            == .init(concurrency: 8, interval: 0))
    }
}
