import CCurl
import Glibc
import FeedCrawlSupport

/// The pipeline's last step, on a thread of its own so the HTTP engine's thread never waits for
/// a disk: each finished download is committed to the cache store (`CacheStore.commit`: made
/// durable and put in place, an earlier copy under another name removed), and then every
/// outcome of the batch is handed to `deliver` (which records the items); the journal is
/// flushed every 32 lines or 200 ms (`flush`). Jobs queue up while a batch is processed, so under load one wake-up serves many.
final class ImageCommitter: @unchecked Sendable {
    /// One URL's outcome, with the downloaded body still to commit when there is one.
    struct Job: Sendable {
        var url: String
        var outcome: ImageRecord.Outcome
        var file: CacheCommit?
    }

    /// Hears each batch's jobs, their bodies committed (a failed commit's outcome is `failed`).
    typealias Deliver = @Sendable ([Job]) -> Void
    /// Flushes the journal when `force` or when it is due; returns false when it failed.
    typealias Flush = @Sendable (_ force: Bool) -> Void

    private let mutex = Lock()
    /// Signalled when there is work for the thread.
    private let condition = Condition()
    /// Signalled when queued bodies have been committed (`room`).
    private let room = Condition()
    // Guarded by `mutex`.
    private var jobs: [Job] = []
    /// The batch being processed: swapped with `jobs` (so neither is reallocated), emptied by
    /// `process`. The thread's own.
    private var batch: [Job] = []
    private var busy = false
    private var stopping = false
    private var drainRequests = 0
    private var flushRequested = false
    private var drained: [CheckedContinuation<Void, Never>] = []
    private var thread: pthread_t?
    /// Bodies queued or being committed.
    private var queuedFiles = 0
    /// `enqueue` waits while this many bodies are queued (nil: never waits).
    private let maxQueuedFiles: Int?

    private let store: any CacheStore
    private let deliver: Deliver
    private let flush: Flush
    private let noteWriteFailure: @Sendable (String, Int32) -> Void
    /// Journal lines are flushed at least this often while the run goes on (200 ms).
    static let flushInterval: Int = 200

    /// `noteWriteFailure` hears of every failed write (path, errno), so a full disk stops the run.
    /// With `maxQueuedFiles`, `enqueue` of a body waits while that many bodies wait to be
    /// committed (a store that uploads: its spool then holds at most the transfers in flight plus
    /// that many bodies); default nil, no wait.
    init(
        store: any CacheStore, maxQueuedFiles: Int? = nil, deliver: @escaping Deliver, flush: @escaping Flush,
        noteWriteFailure: @escaping @Sendable (String, Int32) -> Void
    ) {
        self.store = store
        self.maxQueuedFiles = maxQueuedFiles.map { max($0, 1) }
        self.deliver = deliver
        self.flush = flush
        self.noteWriteFailure = noteWriteFailure
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&tid, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<ImageCommitter>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, context)
        if rc == 0 {
            thread = tid
        } else {
            Unmanaged<ImageCommitter>.fromOpaque(context).release()
        }
    }

    /// Queues a finished URL (waiting first while `maxQueuedFiles` bodies are queued). Without a
    /// thread (it could not start, or after `stop()`) the job is done on the caller's thread.
    func enqueue(_ job: consuming Job) {
        mutex.lock()
        if let maxQueuedFiles, job.file != nil {
            while queuedFiles >= maxQueuedFiles, thread != nil, !stopping {
                room.wait(mutex)
            }
            if thread != nil, !stopping { queuedFiles += 1 }
        }
        if thread == nil || stopping {
            mutex.unlock()
            var single = [job]
            process(&single)
            flush(false)
            return
        }
        jobs.append(job)
        let wake = (jobs.count == 1 && !busy) || jobs.count == 64
        mutex.unlock()
        if wake { condition.signal() }
    }

    /// Asks the thread to flush the journal soon (lines are waiting), without waiting for it.
    func flushSoon() {
        mutex.lock()
        let wake = !flushRequested && !busy
        flushRequested = true
        mutex.unlock()
        if wake { condition.signal() }
    }

    /// Waits until every queued job is delivered and the journal is flushed.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            mutex.lock()
            guard thread != nil, !stopping else {
                mutex.unlock()
                flush(true)
                continuation.resume()
                return
            }
            drained.append(continuation)
            drainRequests += 1
            mutex.unlock()
            condition.signal()
        }
    }

    /// Processes what is queued, flushes, ends the thread and waits for it. Idempotent.
    func stop() {
        mutex.lock()
        let running = stopping ? nil : thread
        stopping = true
        mutex.unlock()
        condition.signal()
        if let running {
            if pthread_equal(running, pthread_self()) != 0 { pthread_detach(running) } else { pthread_join(running, nil) }
        }
    }

    /// After a wake-up, how long the thread lets jobs gather before it takes them (unless 64
    /// are queued already): one wake-up then serves a batch instead of a few images (5 ms; an
    /// image's transfer slot is free already, only its delivery waits). With 1 ms the thread
    /// woke about once per 8 images of a 20,000-image crawl; 5 ms took 2 % less CPU on 4,000
    /// images from nginx (25 paired runs), and 5 % with the malloc arenas of `MemoryTuning`.
    static let gatherNanoseconds = 5_000_000

    private func run() {
        _ = fc_set_thread_name("committer")
        mutex.lock()
        while true {
            if !jobs.isEmpty && jobs.count < 64 && drainRequests == 0 && !stopping {
                _ = condition.wait(mutex, until: Self.deadline(afterNanoseconds: Self.gatherNanoseconds))
            }
            if !jobs.isEmpty {
                swap(&batch, &jobs)
                busy = true
                mutex.unlock()
                let files = process(&batch)
                flush(false)
                mutex.lock()
                if maxQueuedFiles != nil, files > 0 {
                    queuedFiles = max(0, queuedFiles - files)
                    room.broadcast()
                }
                busy = false
                continue
            }
            if flushRequested {
                flushRequested = false
                mutex.unlock()
                flush(false)
                mutex.lock()
                continue
            }
            if drainRequests > 0 {
                let waiters = drained
                drained.removeAll()
                drainRequests = 0
                mutex.unlock()
                flush(true)
                for waiter in waiters { waiter.resume() }
                mutex.lock()
                continue
            }
            if stopping { break }
            if !condition.wait(mutex, until: Self.deadline(afterNanoseconds: Self.flushInterval * 1_000_000)) {
                mutex.unlock()
                flush(false)
                mutex.lock()
            }
        }
        room.broadcast()
        mutex.unlock()
        flush(true)
    }

    private static func deadline(afterNanoseconds nanoseconds: Int) -> timespec {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_nsec += nanoseconds
        while deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return deadline
    }

    /// Commits the batch's bodies (`CacheStore.commitAll`: at once where the store can) and
    /// delivers the batch, leaving `batch` empty with its capacity. Returns how many bodies it
    /// committed or failed.
    @discardableResult
    private func process(_ batch: inout [Job]) -> Int {
        let commits = batch.compactMap(\.file)
        if !commits.isEmpty {
            var errors = store.commitAll(commits).makeIterator()
            for index in batch.indices where batch[index].file != nil {
                guard let error = errors.next() ?? nil else { continue }
                noteWriteFailure(error.path, error.code)
                batch[index].outcome = .init(status: .failed, error: error.description)
            }
        }
        deliver(batch)
        batch.removeAll(keepingCapacity: true)
        return commits.count
    }
}
