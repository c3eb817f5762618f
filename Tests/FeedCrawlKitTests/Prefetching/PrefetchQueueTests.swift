import Testing
@testable import FeedCrawlKit

/// Collects deliveries from a queue.
final class DeliveryLog: @unchecked Sendable {
    private let lock = Lock()
    private var outcomes: [Int: [String]] = [:]
    private var runs: [String] = []
    private var maxRunning = 0
    private var running = 0

    func delivered(_ outcome: String, to subscribers: [Int]) {
        lock.withLock { for s in subscribers { outcomes[s, default: []].append(outcome) } }
    }
    func started(_ key: String) {
        lock.withLock {
            runs.append(key)
            running += 1
            maxRunning = max(maxRunning, running)
        }
    }
    func ended() { lock.withLock { running -= 1 } }
    var all: [Int: [String]] { lock.withLock { outcomes } }
    var started: [String] { lock.withLock { runs } }
    var peak: Int { lock.withLock { maxRunning } }
}

@Suite("PrefetchQueue")
struct PrefetchQueueTests {
    func makeQueue(_ log: DeliveryLog, limits: PrefetchScheduler.Limits, work: UInt64 = 2_000_000) -> PrefetchQueue<String> {
        PrefetchQueue<String>(
            limits: limits,
            operation: { request in
                log.started(request.key)
                defer { log.ended() }
                do { try await Task.sleep(nanoseconds: work) } catch { return "cancelled" }
                return "done:\(request.key)"
            },
            cancelled: { _ in "cancelled" },
            deliver: { outcome, subscribers in log.delivered(outcome, to: subscribers) })
    }

    @Test func backPressureBoundsWaitingAndEveryItemGetsOneOutcome() async {
        let log = DeliveryLog()
        let queue = makeQueue(log, limits: .init(concurrency: 4, perHost: 4, maxWaiting: 8))
        for index in 0..<200 {
            await queue.submit(key: "k\(index % 150)", host: "h", priority: .init(page: index / 50), subscriber: index)
            #expect(queue.waitingCount <= 8)
        }
        await queue.drain()
        #expect(queue.maxWaitingObserved <= 8)
        #expect(log.peak <= 4)
        let outcomes = log.all
        #expect(outcomes.count == 200)
        #expect(outcomes.values.allSatisfy { $0.count == 1 })
        // 150 distinct keys: one run each, however many subscribers.
        #expect(Set(log.started).count == 150)
        #expect(log.started.count == 150)
        #expect(outcomes[160] == ["done:k10"])
    }

    @Test func cancellingAGroupCancelsWaitingRunningAndLaterSubmissions() async {
        let log = DeliveryLog()
        let queue = makeQueue(log, limits: .init(concurrency: 2, perHost: 2, maxWaiting: 50), work: 5_000_000_000)
        for index in 0..<6 {
            await queue.submit(key: "a\(index)", host: "h", group: "a", priority: .init(page: 1), subscriber: index)
        }
        queue.cancel(group: "a")
        await queue.submit(key: "a9", host: "h", group: "a", priority: .init(page: 1), subscriber: 9)
        await queue.drain()
        let outcomes = log.all
        #expect(outcomes.count == 7)
        #expect(outcomes.values.allSatisfy { $0 == ["cancelled"] })
    }

    @Test func cancellingOneKeyLeavesTheOthers() async {
        let log = DeliveryLog()
        let queue = makeQueue(log, limits: .init(concurrency: 1, perHost: 1, maxWaiting: 50), work: 20_000_000)
        for index in 0..<3 {
            await queue.submit(key: "k\(index)", host: "h", priority: .init(page: 1), subscriber: index)
        }
        queue.cancel(key: "k2")
        await queue.drain()
        #expect(log.all[0] == ["done:k0"])
        #expect(log.all[1] == ["done:k1"])
        #expect(log.all[2] == ["cancelled"])
        #expect(!log.started.contains("k2"))
    }
}
