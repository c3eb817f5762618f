import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// A small pool of threads of its own for blocking system calls (`open`, `fsync`, `rename`,
/// `pread`, `readdir`, `flock`), so that they never hold one of the Swift concurrency pool's
/// threads (as many as the machine has cores: two on a small machine, and one `fsync` that takes
/// 50 ms would stall half of every task meanwhile).
///
/// `run` queues a closure and suspends its task on a continuation; a pool thread runs the
/// closure and resumes the task with the result. No thread of the cooperative pool waits
/// (no semaphore, no lock held across the call). Closures run in the order they were queued,
/// `threads` at a time. A caller with many calls to make makes them in one closure (one
/// wake-up for the batch, not one per file: `FolderBackend.saveAll`).
///
/// The threads start at the first `run` and live as long as the pool (`shared`: the process);
/// they are named `threadName` (`feedcrawl-io`), as debuggers and `top -H` show them.
package final class BlockingIO: @unchecked Sendable {
    /// The process's pool, 2 threads: what the folder store uses.
    package static let shared = BlockingIO(threads: 2)

    /// How many threads run closures at once; default 2.
    package let threads: Int

    /// The name of the pool's threads: `feedcrawl-io`.
    package static let threadName = "feedcrawl-io"

    private let lock = Lock()
    /// Signalled when a closure is queued and a thread is idle.
    private let wake = Condition()
    // Guarded by `lock`.
    /// The closures queued, `head` the next to run.
    private var queue: [@Sendable () -> Void] = []
    /// Where the queue starts (taken closures are dropped in bulk).
    private var head = 0
    /// Threads started.
    private var started = 0
    /// Threads waiting for a closure.
    private var idle = 0
    /// Closures queued in all (`jobsSubmitted`).
    private var submitted = 0

    /// A pool of `threads` threads (at least 1; default 2), started on first use.
    package init(threads: Int = 2) {
        self.threads = max(1, threads)
    }

    /// How many closures were queued so far (hops to the pool: a test counts a batch's).
    package var jobsSubmitted: Int { lock.withLock { submitted } }

    /// Threads waiting for a closure now (for tests).
    package var idleThreads: Int { lock.withLock { idle } }

    /// Runs `body` on one of the pool's threads and returns what it returned (or throws what it
    /// threw). The calling task is suspended meanwhile, not blocked. `body` runs even when the
    /// task is cancelled while it waits in the queue (a started file operation is finished, not
    /// torn); it checks `Task.isCancelled` itself if it cares.
    package func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            submit {
                continuation.resume(returning: Result { () throws(E) -> T in try body() })
            }
        }
        return try result.get()
    }

    /// Queues `job` for the next free thread, waking an idle one, and starting one more (up to
    /// `threads`) when the closures waiting outnumber the idle threads: an idle thread already
    /// woken for an earlier closure is not free for this one (were it counted, a thread held by
    /// a long call could leave the rest queued behind it while the pool has room for another).
    /// When no thread can be started, `job` runs on the calling thread.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        lock.lock()
        queue.append(job)
        submitted += 1
        let waiting = queue.count - head
        let wakeOne = idle > 0
        let startOne = waiting > idle && started < threads
        if startOne { started += 1 }
        lock.unlock()
        if wakeOne { wake.signal() }
        guard startOne else { return }
        if !startThread() {
            // No thread (the system refused one): the caller's thread does the work, so nothing
            // queued is ever lost.
            lock.withLock { started -= 1 }
            drainOnCaller()
        }
    }

    /// Starts one worker thread; false when `pthread_create` failed.
    private func startThread() -> Bool {
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<BlockingIO>.fromOpaque(argument).takeRetainedValue().work()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<BlockingIO>.fromOpaque(context).release()
            return false
        }
        pthread_detach(tid)
        return true
    }

    /// A worker: takes closures off the queue for ever, waiting while it is empty.
    private func work() {
        _ = fc_set_thread_name(Self.threadName)
        while true {
            lock.lock()
            while head == queue.count {
                idle += 1
                wake.wait(lock)
                idle -= 1
            }
            let job = takeLocked()
            lock.unlock()
            job()
        }
    }

    /// Runs what is queued on the calling thread (only when no worker could be started).
    private func drainOnCaller() {
        while let job: @Sendable () -> Void = lock.withLock({ head < queue.count ? takeLocked() : nil }) {
            job()
        }
    }

    /// The next closure; `lock` held, the queue not empty.
    private func takeLocked() -> @Sendable () -> Void {
        let job = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return job
    }
}
