import Testing
@testable import FeedCrawlKit

/// `PrefetchScheduler` against a plain model that sorts every time.
@Suite("PrefetchScheduler model")
struct PrefetchSchedulerModelTests {
    struct ModelEntry {
        var key: String
        var host: String
        var priority: PrefetchPriority
        var sequence: Int
        var subscribers: [PrefetchScheduler.Subscriber]
    }

    /// Random submissions (in four groups), joins, starts, finishes, removals and group
    /// cancellations: the same entries start in the same order with the same subscribers, also
    /// for tiers, pages and priorities outside what the packed sort keys hold.
    @Test(arguments: [(8, 8), (4, 2), (16, 16), (3, 1)])
    func matchesASortingModel(concurrency: Int, perHost: Int) {
        var generator = SplitMix(seed: UInt64(concurrency * 31 + perHost))
        var scheduler = PrefetchScheduler(limits: .init(concurrency: concurrency, perHost: perHost, maxWaiting: 64))
        var waiting: [ModelEntry] = []
        var running: [String: ModelEntry] = [:]
        var sequence = 0
        for step in 0..<20_000 {
            switch generator.next() % 11 {
            case 0...4:
                let key = "k\(generator.next() % 200)"
                let host = "h\(generator.next() % 3)"
                let late = step > 10_000
                let pages = [0, 1, 2, 3, 7, 1 << 23, -1]  // the last two do not fit the packed keys
                let page = pages[Int(generator.next() % (late ? 7 : 5))]
                let tiers = [0, 0, 1, 2, 20]  // nor does the last
                let tier = tiers[Int(generator.next() % (late ? 5 : 4))]
                let priority = PrefetchPriority(tier: tier, page: page)
                let subscriber = PrefetchScheduler.Subscriber(
                    token: step, image: Int(generator.next() % 3), group: Int(generator.next() % 4))
                let known = running[key] != nil || waiting.contains { $0.key == key }
                guard known || scheduler.hasRoom else {
                    #expect(waiting.count == 64)
                    continue
                }
                let result = scheduler.submit(key: key, host: host, priority: priority, subscriber: subscriber)
                if running[key] != nil {
                    #expect(result == .joined)
                    running[key]?.subscribers.append(subscriber)
                } else if let index = waiting.firstIndex(where: { $0.key == key }) {
                    #expect(result == .joined)
                    waiting[index].subscribers.append(subscriber)
                    if priority < waiting[index].priority { waiting[index].priority = priority }
                } else {
                    #expect(result == .queued)
                    waiting.append(ModelEntry(
                        key: key, host: host, priority: priority, sequence: sequence, subscribers: [subscriber]))
                    sequence += 1
                }
            case 5...7:
                let hostCounts = Dictionary(grouping: running.values, by: \.host).mapValues(\.count)
                let expected = running.count >= concurrency ? nil : waiting.enumerated()
                    .filter { hostCounts[$0.element.host, default: 0] < perHost }
                    .min { ($0.element.priority, $0.element.sequence) < ($1.element.priority, $1.element.sequence) }
                let started = scheduler.startNext()
                #expect(started?.key == expected?.element.key, "step \(step)")
                #expect(started?.subscribers == expected?.element.subscribers, "step \(step)")
                if let expected {
                    running[expected.element.key] = expected.element
                    waiting.remove(at: expected.offset)
                }
            case 8:
                if let key = running.keys.sorted().first {
                    let finished = scheduler.finish(key)
                    #expect(finished?.key == key)
                    #expect(finished?.subscribers == running[key]?.subscribers)
                    running[key] = nil
                }
            case 9:
                let group = Int(generator.next() % 4)
                let inGroup: (PrefetchScheduler.Entry) -> Bool = { $0.subscribers.contains { $0.group == group } }
                let removed = scheduler.removeWaiting(where: inGroup)
                let expected = waiting.filter { $0.subscribers.contains { $0.group == group } }
                #expect(Set(removed.map(\.key)) == Set(expected.map(\.key)))
                waiting.removeAll { $0.subscribers.contains { $0.group == group } }
            default:
                let group = Int(generator.next() % 4)
                let result = scheduler.unsubscribe(group: group)
                var dropped: Set<String> = []
                var stop: Set<String> = []
                for index in waiting.indices {
                    for subscriber in waiting[index].subscribers where subscriber.group == group {
                        dropped.insert("\(waiting[index].key)/\(subscriber.token)/\(subscriber.image)")
                    }
                    waiting[index].subscribers.removeAll { $0.group == group }
                }
                let removed = Set(waiting.filter(\.subscribers.isEmpty).map(\.key))
                waiting.removeAll { $0.subscribers.isEmpty }
                for key in running.keys {
                    guard let subscribers = running[key]?.subscribers, subscribers.contains(where: { $0.group == group })
                    else { continue }
                    for subscriber in subscribers where subscriber.group == group {
                        dropped.insert("\(key)/\(subscriber.token)/\(subscriber.image)")
                    }
                    running[key]?.subscribers.removeAll { $0.group == group }
                    if running[key]?.subscribers.isEmpty == true { stop.insert(key) }
                }
                #expect(Set(result.dropped.map { "\($0.key)/\($0.subscriber.token)/\($0.subscriber.image)" }) == dropped)
                #expect(result.dropped.allSatisfy { $0.subscriber.group == group })
                #expect(Set(result.removed) == removed)
                #expect(Set(result.stop) == stop)
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
}
