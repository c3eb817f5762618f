import Glibc
import Testing
@testable import FeedCrawlKit

@Suite("PrefetchQueue callback mode")
struct PrefetchQueueCallbackTests {
    /// Finishes each started request on another thread after `delay` µs, unless cancelled.
    final class FakeWork: @unchecked Sendable {
        let log = DeliveryLog()
        let delay: UInt32
        let threads = WorkerThreads(count: 4)
        init(delay: UInt32) { self.delay = delay }

        func start(_ request: PrefetchQueue<String>.Request, _ finish: @escaping @Sendable (String) -> Void) -> @Sendable () -> Void {
            log.started(request.key)
            let cancelled = Locked(false)
            let delay = self.delay
            threads.submit { [log] in
                var waited: UInt32 = 0
                while waited < delay && !cancelled.withLock({ $0 }) {
                    usleep(1000)
                    waited += 1000
                }
                log.ended()
                finish(cancelled.withLock { $0 } ? "cancelled" : "done:\(request.key)")
            }
            return { cancelled.withLock { $0 = true } }
        }
    }

    func makeQueue(_ work: FakeWork, limits: PrefetchScheduler.Limits) -> PrefetchQueue<String> {
        PrefetchQueue<String>(
            limits: limits, keepsOutcomes: true,
            start: { request, finish in work.start(request, finish) },
            cancelled: { _ in "cancelled" },
            deliver: { outcome, subscribers in work.log.delivered(outcome, to: subscribers) })
    }

    @Test func everySubscriberGetsOneOutcomeWithinTheLimits() async {
        let work = FakeWork(delay: 2000)
        defer { work.threads.stop() }
        let queue = makeQueue(work, limits: .init(concurrency: 3, perHost: 3, maxWaiting: 5))
        for index in 0..<60 {
            await queue.submit(key: "k\(index % 40)", host: "h", priority: .init(page: index / 20), subscriber: index)
            #expect(queue.waitingCount <= 5)
        }
        await queue.drain()
        let outcomes = work.log.all
        #expect(outcomes.count == 60)
        #expect(outcomes.values.allSatisfy { $0.count == 1 })
        #expect(outcomes[45] == ["done:k5"])
        #expect(work.log.peak <= 3)
        #expect(work.log.peak >= 2)
        #expect(Set(work.log.started).count == 40)
    }

    @Test func cancellingAGroupStopsRunningWork() async {
        let work = FakeWork(delay: 5_000_000)
        defer { work.threads.stop() }
        let queue = makeQueue(work, limits: .init(concurrency: 2, perHost: 2, maxWaiting: 10))
        for index in 0..<5 {
            await queue.submit(key: "a\(index)", host: "h", group: "a", priority: .init(page: 1), subscriber: index)
        }
        queue.cancel(group: "a")
        await queue.drain()
        #expect(work.log.all.count == 5)
        #expect(work.log.all.values.allSatisfy { $0 == ["cancelled"] })
    }

    @Test func synchronousFinishFromStartIsFine() async {
        let log = DeliveryLog()
        let queue = PrefetchQueue<String>(
            limits: .init(concurrency: 2, perHost: 2, maxWaiting: 4),
            start: { request, finish in
                finish("now:\(request.key)")
                return {}
            },
            cancelled: { _ in "cancelled" },
            deliver: { outcome, subscribers in log.delivered(outcome, to: subscribers) })
        for index in 0..<20 {
            await queue.submit(key: "k\(index)", host: "h", priority: .init(page: 1), subscriber: index)
        }
        await queue.drain()
        #expect(log.all.count == 20)
        #expect(log.all[7] == ["now:k7"])
    }
}
