import Testing
@testable import FeedCrawlKit

@Suite("PrefetchQueue without kept outcomes")
struct PrefetchQueueForgetfulTests {
    @Test func finishedKeyRunsAgainButRunningKeyIsJoined() async {
        let log = DeliveryLog()
        let queue = PrefetchQueue<String>(
            limits: .init(concurrency: 2, perHost: 2, maxWaiting: 8), keepsOutcomes: false,
            operation: { request in
                log.started(request.key)
                defer { log.ended() }
                do { try await Task.sleep(nanoseconds: 20_000_000) } catch { return "cancelled" }
                return "done:\(request.key)"
            },
            cancelled: { _ in "cancelled" },
            deliver: { outcome, subscribers in log.delivered(outcome, to: subscribers) })
        // Two subscribers while "a" runs: one run.
        await queue.submit(key: "a", host: "h", priority: .init(page: 1), subscriber: 0)
        await queue.submit(key: "a", host: "h", priority: .init(page: 1), subscriber: 1)
        await queue.drain()
        #expect(log.started == ["a"])
        // After it finished, nothing is remembered: "a" runs again.
        await queue.submit(key: "a", host: "h", priority: .init(page: 1), subscriber: 2)
        await queue.drain()
        #expect(log.started == ["a", "a"])
        #expect(log.all == [0: ["done:a"], 1: ["done:a"], 2: ["done:a"]])
    }
}
