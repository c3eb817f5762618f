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

    /// Random submissions, joins, starts, finishes and removals against a plain model that
    /// sorts every time: the same entries start in the same order, also for pages and priorities
    /// outside what the packed sort keys hold.
    @Test(arguments: [(8, 8), (4, 2), (16, 16), (3, 1)])
    func matchesASortingModel(concurrency: Int, perHost: Int) {
        struct ModelEntry { var key: String; var host: String; var group: String; var priority: PrefetchPriority; var sequence: Int }
        var generator = SplitMix(seed: UInt64(concurrency * 31 + perHost))
        var scheduler = PrefetchScheduler(limits: .init(concurrency: concurrency, perHost: perHost, maxWaiting: 64))
        var waiting: [ModelEntry] = []
        var running: [String: String] = [:]  // key -> host
        var sequence = 0
        for step in 0..<20_000 {
            switch generator.next() % 10 {
            case 0...4:
                let key = "k\(generator.next() % 200)"
                let host = "h\(generator.next() % 3)"
                let pages = [0, 1, 2, 3, 7, 1 << 23, -1]  // the last two do not fit the packed keys
                let page = step > 10_000 ? pages[Int(generator.next() % 7)] : pages[Int(generator.next() % 5)]
                let priority = PrefetchPriority(tier: generator.next() % 4 == 0 ? .secondary : .preview, page: page)
                guard running[key] != nil || waiting.contains(where: { $0.key == key }) || scheduler.hasRoom else { continue }
                let result = scheduler.submit(key: key, host: host, group: "g\(page)", priority: priority, subscriber: step)
                if running[key] != nil {
                    #expect(result == .joined)
                } else if let index = waiting.firstIndex(where: { $0.key == key }) {
                    #expect(result == .joined)
                    if priority < waiting[index].priority { waiting[index].priority = priority }
                } else {
                    #expect(result == .queued)
                    waiting.append(ModelEntry(key: key, host: host, group: "g\(page)", priority: priority, sequence: sequence))
                    sequence += 1
                }
            case 5...7:
                let hostCounts = Dictionary(grouping: running.values, by: { $0 }).mapValues(\.count)
                let expected = running.count >= concurrency ? nil : waiting.enumerated()
                    .filter { hostCounts[$0.element.host, default: 0] < perHost }
                    .min { ($0.element.priority, $0.element.sequence) < ($1.element.priority, $1.element.sequence) }
                let started = scheduler.startNext()
                #expect(started?.key == expected?.element.key, "step \(step)")
                if let expected {
                    running[expected.element.key] = expected.element.host
                    waiting.remove(at: expected.offset)
                }
            case 8:
                if let key = running.keys.sorted().first {
                    #expect(scheduler.finish(key)?.key == key)
                    running[key] = nil
                }
            default:
                let group = "g\(generator.next() % 4)"
                let removed = scheduler.removeWaiting { $0.group == group }
                #expect(Set(removed.map(\.key)) == Set(waiting.filter { $0.group == group }.map(\.key)))
                waiting.removeAll { $0.group == group }
            }
            #expect(scheduler.waitingCount == waiting.count)
            #expect(scheduler.runningCount == running.count)
        }
    }

    /// A small deterministic generator for the model test.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
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
