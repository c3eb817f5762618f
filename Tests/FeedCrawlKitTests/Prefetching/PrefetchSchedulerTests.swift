import Testing
@testable import FeedCrawlKit

@Suite("PrefetchScheduler")
struct PrefetchSchedulerTests {
    @Test func startsByPriorityThenSubmissionOrder() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 1, perHost: 1, maxWaiting: 10))
        _ = scheduler.submit(key: "p3", host: "h", group: "a", priority: .init(page: 3), subscriber: 0)
        _ = scheduler.submit(key: "d1", host: "h", group: "a", priority: .init(tier: .secondary, page: 1), subscriber: 1)
        _ = scheduler.submit(key: "p1a", host: "h", group: "a", priority: .init(page: 1), subscriber: 2)
        _ = scheduler.submit(key: "p1b", host: "h", group: "a", priority: .init(page: 1), subscriber: 3)
        var order: [String] = []
        while let entry = scheduler.startNext() {
            order.append(entry.key)
            _ = scheduler.finish(entry.key)
        }
        #expect(order == ["p1a", "p1b", "p3", "d1"])
    }

    @Test func respectsConcurrencyAndPerHostCaps() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 3, perHost: 2, maxWaiting: 10))
        for index in 0..<4 {
            _ = scheduler.submit(key: "a\(index)", host: "a", group: "", priority: .init(page: 1), subscriber: index)
        }
        _ = scheduler.submit(key: "b0", host: "b", group: "", priority: .init(page: 9), subscriber: 9)
        var started: [String] = []
        while let entry = scheduler.startNext() { started.append(entry.key) }
        #expect(started == ["a0", "a1", "b0"])
        #expect(scheduler.runningCount(host: "a") == 2)
        #expect(scheduler.startNext() == nil)
        _ = scheduler.finish("b0")
        // Host a is still at its cap: the free slot stays free.
        #expect(scheduler.startNext() == nil)
        _ = scheduler.finish("a0")
        #expect(scheduler.startNext()?.key == "a2")
    }

    @Test func sameKeyJoinsOneEntryWithEverySubscriber() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 1, perHost: 1, maxWaiting: 1))
        #expect(scheduler.submit(key: "u", host: "h", group: "", priority: .init(page: 2), subscriber: 1) == .queued)
        #expect(!scheduler.hasRoom)
        #expect(scheduler.submit(key: "u", host: "h", group: "", priority: .init(page: 1), subscriber: 2) == .joined)
        let entry = scheduler.startNext()
        #expect(entry?.priority.page == 1)
        #expect(scheduler.submit(key: "u", host: "h", group: "", priority: .init(page: 1), subscriber: 3) == .joined)
        #expect(scheduler.finish("u")?.subscribers == [1, 2, 3])
        #expect(scheduler.isIdle)
    }

    @Test func removesWaitingByGroupAndReportsRunning() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 1, perHost: 1, maxWaiting: 10))
        _ = scheduler.submit(key: "x1", host: "h", group: "x", priority: .init(page: 1), subscriber: 0)
        _ = scheduler.submit(key: "x2", host: "h", group: "x", priority: .init(page: 1), subscriber: 1)
        _ = scheduler.submit(key: "y1", host: "h", group: "y", priority: .init(page: 1), subscriber: 2)
        #expect(scheduler.startNext()?.key == "x1")
        let removed = scheduler.removeWaiting { $0.group == "x" }
        #expect(removed.map(\.key) == ["x2"])
        #expect(scheduler.runningKeys { $0.group == "x" } == ["x1"])
        #expect(scheduler.isWaiting("y1"))
        #expect(!scheduler.isWaiting("x2"))
    }
}
