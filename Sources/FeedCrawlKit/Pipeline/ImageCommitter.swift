import FeedCrawlStorage
import FeedCrawlSupport

/// The pipeline's last step, off the engine's thread: each finished download is saved to the
/// archive's backend (`Backend.saveAll`: as many at once as the store takes), and then every
/// outcome of the batch is handed to `deliver` (which records the items); the journal is saved
/// when due (`flush`). One task does it; jobs queue up while a batch is saved, so under load one
/// wake-up serves many.
///
/// An image saved under a new name (its type changed) leaves the old name to be removed once the
/// archive no longer names it: `replaced` collects those for the end of the run.
final class ImageCommitter: @unchecked Sendable {
    /// One URL's outcome, with the downloaded body to save when there is one.
    struct Job: Sendable {
        var url: String
        var outcome: ImageRecord.Outcome
        /// The staged body and the name it is saved as.
        var file: SaveRequest?
        /// An earlier copy of the URL under another name, removed at the end of the run.
        var replacing: FileHandle?
    }

    /// Hears each batch's jobs, their bodies saved (a failed save's outcome is `failed`).
    typealias Deliver = @Sendable ([Job]) -> Void
    /// Saves the journal when `force` or when it is due.
    typealias Flush = @Sendable (_ force: Bool) async -> Void

    private let mutex = Lock()
    /// Signalled when queued bodies have been saved (`room`).
    private let room = Condition()
    // Guarded by `mutex`.
    private var jobs: [Job] = []
    private var wakeUp: CheckedContinuation<Void, Never>?
    private var pokes = 0
    private var stopping = false
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    private var queuedFiles = 0
    private var replacedNames: [FileHandle] = []
    private var savedCount = 0
    private var worker: Task<Void, Never>?
    private var ticker: Task<Void, Never>?
    /// `enqueue` waits while this many bodies are queued (nil: never waits).
    private let maxQueuedFiles: Int?

    private let backend: any Backend
    private let deliver: Deliver
    private let flush: Flush
    private let noteWriteFailure: @Sendable (BackendError) -> Void
    /// After a wake-up, how long the task lets jobs gather before it takes them (unless 64 are
    /// queued already): one wake-up then serves a batch instead of a few images (5 ms).
    static let gatherNanoseconds: UInt64 = 5_000_000
    /// The journal is looked at least this often while the run goes on (200 ms).
    static let flushInterval: Duration = .milliseconds(200)

    /// `noteWriteFailure` hears of every failed save, so a full disk stops the run. With
    /// `maxQueuedFiles` (the backend's `maxWaitingStaged`), `enqueue` of a body waits while that
    /// many bodies wait to be saved; default nil, no wait.
    init(
        backend: any Backend, maxQueuedFiles: Int? = nil, deliver: @escaping Deliver, flush: @escaping Flush,
        noteWriteFailure: @escaping @Sendable (BackendError) -> Void
    ) {
        self.backend = backend
        self.maxQueuedFiles = maxQueuedFiles.map { max($0, 1) }
        self.deliver = deliver
        self.flush = flush
        self.noteWriteFailure = noteWriteFailure
        worker = Task { [self] in await run() }
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.flushInterval)
                self?.poke()
            }
        }
    }

    /// Queues a finished URL (waiting first while `maxQueuedFiles` bodies are queued: only the
    /// engine's thread queues bodies, so the wait holds downloads back, never the task that
    /// saves them). After `stop()` the job is delivered without its body being saved.
    func enqueue(_ job: consuming Job) {
        mutex.lock()
        if let maxQueuedFiles, job.file != nil {
            while queuedFiles >= maxQueuedFiles, !stopping { room.wait(mutex) }
        }
        if stopping {
            mutex.unlock()
            var late = job
            if let file = late.file {
                if case .staged(let staged) = file.body { staged.discard() }
                late.file = nil
                late.outcome = .init(status: .cancelled, error: "cancelled")
            }
            deliver([late])
            return
        }
        if job.file != nil { queuedFiles += 1 }
        jobs.append(job)
        let waiter = takeWaiterLocked()
        mutex.unlock()
        waiter?.resume()
    }

    /// Asks the task to look at the journal soon, without waiting for it.
    func flushSoon() { poke() }

    /// Waits until every queued job is delivered and the journal is saved.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiter: CheckedContinuation<Void, Never>? = mutex.withLock {
                drainWaiters.append(continuation)
                return takeWaiterLocked()
            }
            waiter?.resume()
        }
    }

    /// Saves and delivers what is queued, saves the journal, ends the task and waits for it.
    /// Idempotent.
    func stop() async {
        let (worker, waiter): (Task<Void, Never>?, CheckedContinuation<Void, Never>?) = mutex.withLock {
            stopping = true
            return (self.worker, takeWaiterLocked())
        }
        room.broadcast()
        waiter?.resume()
        await worker?.value
        ticker?.cancel()
    }

    /// The earlier copies of URLs saved under another name this run: remove them once the
    /// archive's root no longer names them.
    var replaced: [FileHandle] { mutex.withLock { replacedNames } }

    /// Bodies saved so far.
    var saved: Int { mutex.withLock { savedCount } }

    private func poke() {
        let waiter: CheckedContinuation<Void, Never>? = mutex.withLock {
            pokes += 1
            return takeWaiterLocked()
        }
        waiter?.resume()
    }

    private func takeWaiterLocked() -> CheckedContinuation<Void, Never>? {
        defer { wakeUp = nil }
        return wakeUp
    }

    private func run() async {
        var batch: [Job] = []
        while true {
            // Wait for work: jobs, a poke (the journal), a drain or the stop.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = mutex.withLock {
                    if !jobs.isEmpty || pokes > 0 || !drainWaiters.isEmpty || stopping { return true }
                    wakeUp = continuation
                    return false
                }
                if now { continuation.resume() }
            }
            let gather = mutex.withLock { !jobs.isEmpty && jobs.count < 64 && drainWaiters.isEmpty && !stopping }
            if gather { try? await Task.sleep(nanoseconds: Self.gatherNanoseconds) }
            let (drainers, done): ([CheckedContinuation<Void, Never>], Bool) = mutex.withLock {
                swap(&batch, &jobs)
                pokes = 0
                let idle = batch.isEmpty
                var drainers: [CheckedContinuation<Void, Never>] = []
                if idle { swap(&drainers, &drainWaiters) }
                return (drainers, idle && stopping)
            }
            if !batch.isEmpty {
                let files = await process(&batch)
                if files > 0 {
                    mutex.withLock { queuedFiles = max(0, queuedFiles - files) }
                    room.broadcast()
                }
                await flush(false)
                continue
            }
            if !drainers.isEmpty || done {
                await flush(true)
                for drainer in drainers { drainer.resume() }
            } else {
                await flush(false)
            }
            if done { break }
        }
        room.broadcast()
    }

    /// Saves the batch's bodies (`Backend.saveAll`) and delivers the batch, leaving `batch`
    /// empty with its capacity. Returns how many bodies it saved or failed.
    private func process(_ batch: inout [Job]) async -> Int {
        let saves = batch.compactMap(\.file)
        if !saves.isEmpty {
            var errors = await backend.saveAll(saves).makeIterator()
            var replaced: [FileHandle] = []
            var saved = 0
            for index in batch.indices where batch[index].file != nil {
                if let error = errors.next() ?? nil {
                    noteWriteFailure(error)
                    batch[index].outcome = .init(status: .failed, error: error.description)
                } else {
                    saved += 1
                    if let old = batch[index].replacing { replaced.append(old) }
                }
            }
            mutex.withLock {
                replacedNames += replaced
                savedCount += saved
            }
        }
        deliver(batch)
        batch.removeAll(keepingCapacity: true)
        return saves.count
    }
}
