import FeedCrawlSupport
import Glibc
import Testing

/// The pool blocking system calls run on: results and errors come back, the work runs on its own
/// threads, every call of many at once completes.
@Suite struct BlockingIOTests {
    struct Refusal: Error, Equatable {
        var code: Int32
    }

    @Test func resultsAndErrorsComeBack() async throws {
        let io = BlockingIO(threads: 2)
        #expect(await io.run { 6 * 7 } == 42)
        await #expect(throws: Refusal(code: ENOSPC)) {
            try await io.run { () throws(Refusal) -> Int in throw Refusal(code: ENOSPC) }
        }
    }

    @Test func theWorkRunsOnThePoolsOwnThreads() async throws {
        let io = BlockingIO(threads: 2)
        let name = await io.run { () -> [UInt8] in (try? FileIO.read("/proc/thread-self/comm")) ?? [] }
        #expect(name == Array((BlockingIO.threadName + "\n").utf8))
    }

    @Test func manyCallsAtOnceAllComplete() async throws {
        let io = BlockingIO(threads: 2)
        let before = io.jobsSubmitted
        let total = await withTaskGroup(of: Int.self) { group in
            for index in 0..<2000 {
                group.addTask { await io.run { index } }
            }
            return await group.reduce(0, +)
        }
        #expect(total == (0..<2000).reduce(0, +))
        #expect(io.jobsSubmitted - before == 2000)
    }

    /// A call that blocks does not hold up the others while the pool has room: with its one
    /// thread idle, a blocking closure and another queued back to back get a thread each (the
    /// idle thread is woken for the first; the second must not wait behind it).
    @Test func oneBlockedThreadLeavesTheOtherWorking() async throws {
        let io = BlockingIO(threads: 2)
        await io.run {}
        #expect(await waitUntil { io.idleThreads == 1 })
        let gate = Locked(false)
        let ran = Locked(false)
        defer { gate.withLock { $0 = true } }
        io.submit { while !gate.withLock({ $0 }) { usleep(1000) } }
        io.submit { ran.withLock { $0 = true } }
        #expect(await waitUntil { ran.withLock { $0 } }, "the second closure waited behind the blocked one")
        gate.withLock { $0 = true }
        for index in 0..<50 { #expect(await io.run { index } == index) }
    }
}
