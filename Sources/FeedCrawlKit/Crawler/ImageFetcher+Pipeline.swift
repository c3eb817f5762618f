import FoundationEssentials
import Glibc

extension ImageFetcher {
    /// One image being fetched by `begin`; `cancel()` stops it (the outcome is then `cancelled`).
    final class Run: @unchecked Sendable {
        private let lock = Lock()
        private var cancelled = false
        private var handle: TransferHandle?
        private var retryWait: Task<Void, Never>?
        private let engine: HTTPEngine

        init(engine: HTTPEngine) {
            self.engine = engine
        }

        var isCancelled: Bool { lock.withLock { cancelled } }

        /// Cancels the transfer in flight or the wait before a retry.
        func cancel() {
            let (handle, wait): (TransferHandle?, Task<Void, Never>?) = lock.withLock {
                cancelled = true
                return (self.handle, retryWait)
            }
            if let handle { engine.cancel(handle) }
            wait?.cancel()
        }

        /// Records the transfer in flight; false when the run was cancelled meanwhile.
        fileprivate func started(_ handle: TransferHandle) -> Bool {
            lock.withLock {
                self.handle = handle
                return !cancelled
            }
        }

        /// Records the wait before a retry; false when the run was cancelled meanwhile.
        fileprivate func waiting(_ task: Task<Void, Never>) -> Bool {
            lock.withLock {
                retryWait = task
                handle = nil
                return !cancelled
            }
        }
    }

    /// Fetches `url` with the same requests, checks and retries as `fetch(_:)`, but without a
    /// task per image: the transfer runs on the engine's thread, and its finish (fsync, close,
    /// validation, rename into the cache) on `workers` or, while `placement` measures fsyncs as
    /// fast, right on the engine's thread; `done` gets the outcome there.
    /// An outcome known at once (a refused URL, storage already failing) is passed to `done` on
    /// the calling thread. Only the wait before a retry uses a task. As with `fetch(_:)`, a
    /// failed or cancelled outcome keeps referencing the copy an earlier run cached.
    func begin(
        _ url: String, workers: WorkerThreads, placement: FinishPlacement,
        done: @escaping @Sendable (ImageOutcome) -> Void
    ) -> Run {
        let run = Run(engine: engine)
        if let problem = URLCheck.problem(url) {
            done(ImageOutcome(status: .rejected, error: problem))
            return run
        }
        let previous = previousCopy(url)
        if let error = storage?.itemError {
            done(ImageOutcome(status: .failed, error: error).keepingCopy(previous))
            return run
        }
        let keeping: @Sendable (ImageOutcome) -> Void = { done($0.keepingCopy(previous)) }
        attempt(url, previous: previous, number: 1, run: run, workers: workers, placement: placement, done: keeping)
        return run
    }

    private func attempt(
        _ url: String, previous: CachedImage?, number: Int, run: Run, workers: WorkerThreads,
        placement: FinishPlacement, done: @escaping @Sendable (ImageOutcome) -> Void
    ) {
        let prepared = prepare(url, previous: previous)
        let handle: TransferHandle
        do {
            handle = try engine.start(prepared.request) { [self] result in
                // Engine thread: hand the blocking part to the workers at once.
                let finish: @Sendable () -> Void = { [self] in
                    let attempt = conclude(prepared, Self.finishFile(result, placement: placement))
                    settle(attempt, url: url, previous: previous, number: number, run: run, workers: workers,
                           placement: placement, done: done)
                }
                // Engine thread: finish here only while fsyncs are measured fast (FinishPlacement).
                if placement.finishesInline { finish() } else { workers.submit(finish) }
            }
        } catch {
            settle(conclude(prepared, .failure(error)), url: url, previous: previous, number: number, run: run,
                   workers: workers, placement: placement, done: done)
            return
        }
        if !run.started(handle) { engine.cancel(handle) }
    }

    /// A completed transfer's response once its body file is synced and closed.
    private static func finishFile(
        _ result: Result<CompletedTransfer, any Error>, placement: FinishPlacement
    ) -> Result<HTTPResponse, any Error> {
        switch result {
        case .success(let completed):
            do {
                if let file = completed.pendingFile {
                    let started = FinishPlacement.now()
                    defer { placement.record(nanoseconds: FinishPlacement.now() &- started) }
                    try file.finish()
                }
                return .success(completed.response)
            } catch {
                return .failure(error)
            }
        case .failure(let error):
            return .failure(error)
        }
    }

    private func settle(
        _ attempt: Attempt, url: String, previous: CachedImage?, number: Int, run: Run, workers: WorkerThreads,
        placement: FinishPlacement, done: @escaping @Sendable (ImageOutcome) -> Void
    ) {
        switch attempt {
        case .done(let outcome):
            done(outcome)
        case .retry(let reason, let retryAfter):
            guard !run.isCancelled else {
                done(ImageOutcome(status: .cancelled, error: "cancelled"))
                return
            }
            guard policy.allowsRetry(after: number) else {
                done(ImageOutcome(status: .failed, error: reason))
                return
            }
            let delay = policy.delay(beforeRetry: number, retryAfter: retryAfter, jitter: Double.random(in: 0..<1))
            events(.retrying(url: url, attempt: number, delay: delay, reason: reason))
            let wait = Task { [self] in
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                } catch {
                    done(ImageOutcome(status: .cancelled, error: "cancelled"))
                    return
                }
                self.attempt(url, previous: previous, number: number + 1, run: run, workers: workers,
                             placement: placement, done: done)
            }
            if !run.waiting(wait) { wait.cancel() }
        }
    }
}
