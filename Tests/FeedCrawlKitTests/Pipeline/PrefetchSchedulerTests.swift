import Testing
@testable import FeedCrawlKit

@Suite("PrefetchScheduler")
struct PrefetchSchedulerTests {
    typealias Subscriber = PrefetchScheduler.Subscriber

    static func subscriber(_ token: Int, group: Int = 0, image: Int = 0) -> Subscriber {
        Subscriber(token: token, image: image, group: group)
    }

    @Test func startsByTierThenPageThenSubmissionOrder() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 1, perHost: 1, maxWaiting: 10))
        _ = scheduler.submit(key: "p3", host: "h", priority: .init(page: 3), subscriber: Self.subscriber(0))
        _ = scheduler.submit(key: "large1", host: "h", priority: .init(tier: 1, page: 1), subscriber: Self.subscriber(1))
        _ = scheduler.submit(key: "p1a", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(2))
        _ = scheduler.submit(key: "p1b", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(3))
        _ = scheduler.submit(key: "third1", host: "h", priority: .init(tier: 2, page: 1), subscriber: Self.subscriber(4))
        var order: [String] = []
        while let entry = scheduler.startNext() {
            order.append(entry.key)
            _ = scheduler.finish(entry.key)
        }
        #expect(order == ["p1a", "p1b", "p3", "large1", "third1"])
    }

    @Test func respectsConcurrencyAndPerHostCaps() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 3, perHost: 2, maxWaiting: 10))
        for index in 0..<4 {
            _ = scheduler.submit(key: "a\(index)", host: "a", priority: .init(page: 1), subscriber: Self.subscriber(index))
        }
        _ = scheduler.submit(key: "b0", host: "b", priority: .init(page: 9), subscriber: Self.subscriber(9))
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
        let first = Self.subscriber(1), second = Self.subscriber(2, group: 1), third = Self.subscriber(3, image: 1)
        #expect(scheduler.submit(key: "u", host: "h", priority: .init(page: 2), subscriber: first) == .queued)
        #expect(!scheduler.hasRoom)
        // Joining needs no room, and a better priority moves the entry up.
        #expect(scheduler.submit(key: "u", host: "h", priority: .init(page: 1), subscriber: second) == .joined)
        let entry = scheduler.startNext()
        #expect(entry?.priority.page == 1)
        #expect(scheduler.isRunning("u"))
        #expect(scheduler.submit(key: "u", host: "h", priority: .init(page: 1), subscriber: third) == .joined)
        #expect(scheduler.finish("u")?.subscribers == [first, second, third])
        #expect(scheduler.isIdle)
        #expect(scheduler.finish("u") == nil)
    }

    @Test func removesWaitingEntriesThatMatchAndReportsRunningOnes() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 1, perHost: 1, maxWaiting: 10))
        _ = scheduler.submit(key: "x1", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(0, group: 7))
        _ = scheduler.submit(key: "x2", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(1, group: 7))
        _ = scheduler.submit(key: "y1", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(2, group: 8))
        #expect(scheduler.startNext()?.key == "x1")
        let inGroup: (PrefetchScheduler.Entry) -> Bool = { $0.subscribers.contains { $0.group == 7 } }
        let removed = scheduler.removeWaiting(where: inGroup)
        #expect(removed.map(\.key) == ["x2"])
        #expect(scheduler.runningKeys(where: inGroup) == ["x1"])
        #expect(scheduler.isWaiting("y1"))
        #expect(!scheduler.isWaiting("x2"))
        #expect(scheduler.waitingCount == 1)
    }

    @Test func aWaitingEntryWithAnotherGroupsSubscriberSurvivesTheCancellation() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 1, perHost: 1, maxWaiting: 10))
        let mine = Self.subscriber(1, group: 0), theirs = Self.subscriber(2, group: 1)
        _ = scheduler.submit(key: "busy", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(0, group: 1))
        #expect(scheduler.startNext()?.key == "busy")
        _ = scheduler.submit(key: "shared", host: "h", priority: .init(page: 1), subscriber: mine)
        _ = scheduler.submit(key: "shared", host: "h", priority: .init(page: 1), subscriber: theirs)
        _ = scheduler.submit(key: "alone", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(3, group: 0))

        let result = scheduler.unsubscribe(group: 0)
        #expect(Set(result.dropped.map { "\($0.key)/\($0.subscriber.token)" }) == ["shared/1", "alone/3"])
        #expect(result.removed == ["alone"])
        #expect(result.stop.isEmpty)
        #expect(scheduler.isWaiting("shared"))
        #expect(!scheduler.isWaiting("alone"))
        _ = scheduler.finish("busy")
        let next = scheduler.startNext()
        #expect(next?.key == "shared")
        #expect(next?.subscribers == [theirs])
    }

    @Test func aRunningEntryLeftWithoutSubscribersIsListedToStop() {
        var scheduler = PrefetchScheduler(limits: .init(concurrency: 2, perHost: 2, maxWaiting: 10))
        // Two images of one item of group 0 want "mine"; "ours" is wanted by both groups.
        _ = scheduler.submit(key: "mine", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(1, group: 0))
        _ = scheduler.submit(key: "mine", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(1, group: 0, image: 1))
        _ = scheduler.submit(key: "ours", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(2, group: 0))
        _ = scheduler.submit(key: "ours", host: "h", priority: .init(page: 1), subscriber: Self.subscriber(3, group: 1))
        #expect(scheduler.startNext()?.key == "mine")
        #expect(scheduler.startNext()?.key == "ours")

        let result = scheduler.unsubscribe(group: 0)
        #expect(result.stop == ["mine"])
        #expect(result.removed.isEmpty)
        #expect(result.dropped.count == 3)
        #expect(result.dropped.allSatisfy { $0.subscriber.group == 0 })
        // Both keep running until their work ends.
        #expect(scheduler.isRunning("mine") && scheduler.isRunning("ours"))
        #expect(scheduler.finish("mine")?.subscribers == [])
        #expect(scheduler.finish("ours")?.subscribers == [Self.subscriber(3, group: 1)])
        // A group with no subscribers changes nothing.
        let none = scheduler.unsubscribe(group: 5)
        #expect(none.dropped.isEmpty && none.removed.isEmpty && none.stop.isEmpty)
    }
}
