import Testing
@testable import FeedCrawlKit

@Suite("WorkerThreads and FinishPlacement")
struct WorkerThreadsTests {
    @Test func everyJobRunsOnceAndStopWaitsForThem() {
        let workers = WorkerThreads(count: 3)
        let count = Locked(0)
        for _ in 0..<5000 { workers.submit { count.withLock { $0 += 1 } } }
        workers.stop()
        #expect(count.withLock { $0 } == 5000)
        // After stop, jobs run on the caller's thread.
        workers.submit { count.withLock { $0 += 1 } }
        #expect(count.withLock { $0 } == 5001)
        workers.stop()
    }

    @Test func finishingMovesInlineOnlyWhileFsyncsAreFast() {
        let placement = FinishPlacement()
        #expect(!placement.finishesInline)
        for _ in 0..<(FinishPlacement.warmUp - 1) { placement.record(nanoseconds: 5_000) }
        #expect(!placement.finishesInline)  // still warming up
        placement.record(nanoseconds: 5_000)
        #expect(placement.finishesInline)
        for _ in 0..<20 { placement.record(nanoseconds: 5_000_000) }  // a slow disk
        #expect(!placement.finishesInline)
        for _ in 0..<60 { placement.record(nanoseconds: 20_000) }
        #expect(placement.finishesInline)
    }
}
