import Dispatch
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

    /// A key that finished but whose outcome is still being delivered is not forgotten yet: a
    /// subscriber arriving then gets that outcome, not a second run (the crawler learns the
    /// outcome of a URL only from the delivery, so it would otherwise fetch it twice).
    @Test func aSubscriberArrivingDuringTheDeliveryGetsThatOutcome() async throws {
        let starts = Locked(0)
        let finishers = Locked<[@Sendable (String) -> Void]>([])
        let delivered = Locked<[Int: String]>([:])
        let release = DispatchSemaphore(value: 0)
        let queue = PrefetchQueue<String>(
            limits: .init(concurrency: 2, perHost: 2, maxWaiting: 8), keepsOutcomes: false,
            start: { _, finish in
                starts.withLock { $0 += 1 }
                finishers.withLock { $0.append(finish) }
                return {}
            },
            cancelled: { _ in "cancelled" },
            deliver: { outcome, subscribers in
                delivered.withLock { for subscriber in subscribers { $0[subscriber] = outcome } }
                if subscribers == [0] { release.wait() }  // the first delivery is slow
            })
        await queue.submit(key: "a", host: "h", priority: .init(page: 1), subscriber: 0)
        let finish = try #require(finishers.withLock { $0.first })
        DispatchQueue.global().async { finish("done:a") }
        while delivered.withLock({ $0[0] }) == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        await queue.submit(key: "a", host: "h", priority: .init(page: 1), subscriber: 1)
        #expect(starts.withLock { $0 } == 1)
        #expect(delivered.withLock { $0[1] } == "done:a")
        release.signal()
        // Should there be a second run after all, finish it so the test ends.
        for extra in finishers.withLock({ $0.dropFirst() }) { extra("second run") }
        try #require(starts.withLock { $0 } == 1)
        await queue.drain()
        // Once delivered, the key is forgotten as before.
        await queue.submit(key: "a", host: "h", priority: .init(page: 1), subscriber: 2)
        #expect(starts.withLock { $0 } == 2)
        try #require(finishers.withLock { $0.count } == 2)
        finishers.withLock { $0[1] }("again:a")
        await queue.drain()
        #expect(delivered.withLock { $0[2] } == "again:a")
    }
}
