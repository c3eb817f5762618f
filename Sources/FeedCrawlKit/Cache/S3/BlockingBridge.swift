import Dispatch
import FeedCrawlSupport

/// Runs async code (`S3Client`) from synchronous code (`CacheStore`) by blocking the calling
/// thread until it is done.
///
/// The naive bridge — `Task { … }` and a semaphore — starts the task on Swift's cooperative pool
/// (as many threads as cores: 2 here) and blocks the caller. When the callers are themselves
/// pool threads (an async function at the end of a run calling `store.list`, or several tasks
/// each calling the store), every pool thread can be blocked on a semaphore while the tasks that
/// would signal them wait for a pool thread: a deadlock. This bridge instead starts the task with
/// a task-executor preference (SE-0417) for an executor of its own, a serial `DispatchQueue`
/// (which targets the overcommitting root queue, so it gets a thread even when every pool thread
/// is blocked): the task's code, and every resumption after an `await` (the engine resumes
/// `perform`'s continuation from its libcurl thread; `Task.sleep`, `S3Client`'s pause before a
/// retry, wakes it too), runs on that queue, never needing the pool. Tested with 8 callers a core
/// blocking every pool thread: the naive bridge had not finished after 60 s, this one takes
/// about a second.
///
/// `HTTPEngine.start` with completion callbacks would avoid tasks altogether, but would need a
/// second, synchronous copy of the client's requests and retries; this keeps one.
///
/// Never call `run` from a job running on `executor`'s own queue (it would wait for itself).
final class BlockingBridge: Sendable {
    /// The executor the bridged tasks prefer.
    final class QueueExecutor: TaskExecutor, @unchecked Sendable {
        let queue: DispatchQueue

        init(label: String) {
            queue = DispatchQueue(label: label)
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    let executor: QueueExecutor

    /// A bridge with a queue of its own, named `label`. Default `feedcrawl.s3-bridge`.
    init(label: String = "feedcrawl.s3-bridge") {
        executor = QueueExecutor(label: label)
    }

    /// Runs `body` to its end on the bridge's executor and returns what it returned or throws
    /// what it threw, blocking the calling thread meanwhile.
    @discardableResult
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
