import FeedCrawlHTTP
import FeedCrawlSupport

/// Retries what fails for a while (restic's `retry` backend), once for every store: each
/// operation is tried again while its error is transient (`BackendError.isTransient`: a lost
/// connection, a 5xx, a push-back) and the run's `RetryPolicy` allows it (`--retries`; the wait
/// from `decide`: back-off with jitter, at least the store's `Retry-After`, given up when that is
/// over `--max-retry-wait` or would pass `--deadline`). The wait is cancellable: a cancelled task
/// stops retrying (`.cancelled`). The error that ends it says how many attempts were made
/// (`BackendError.attempts`) and, when the policy gave up early, why.
///
/// A staged body is saved again after a transient failure: every store leaves it whole then
/// (`Backend.save`), and consumes it on any other failure, which is not retried. `saveAll` hands
/// the base the batch once, then retries each transient failure alone. `stage` (local, makes no
/// request) is passed through.
///
/// In `Backends.wrapped` it is the outermost wrapper, `Retrying(Paced(Deadline(store)))`: each
/// attempt passes the pacing gate again and is bounded by the deadline.
final class RetryingBackend: BackendWrapper {
    /// The backend wrapped.
    let base: any Backend
    /// When to retry and how long to wait (the run's `--retries`, `--max-retry-wait`, `--deadline`).
    let policy: RetryPolicy
    /// A number in 0..<1 for each wait's jitter; default random.
    private let jitter: @Sendable () -> Double

    /// `base` with its operations retried as `policy` says; `jitter` (default random) gives
    /// `RetryPolicy.decide` its 0..<1.
    init(_ base: any Backend, policy: RetryPolicy, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.base = base
        self.policy = policy
        self.jitter = jitter
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        let base = base
        try await retrying { () async throws(BackendError) in try await base.save(handle, staged: staged, options: options) }
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        let base = base
        try await retrying { () async throws(BackendError) in try await base.save(handle, bytes: bytes, options: options) }
    }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        let base = base
        return try await retrying { () async throws(BackendError) in try await base.load(handle, range: range, maxBytes: maxBytes) }
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? {
        let base = base
        return try await retrying { () async throws(BackendError) in try await base.stat(handle) }
    }

    /// Retried from the start; pages already delivered are delivered again (a listing is in no
    /// particular order, and callers collect what they see), so a retried listing can show a
    /// file twice. An error `page` throws is never retried.
    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        var attempt = 1
        while true {
            var pageFailed = false
            do {
                try await base.list(kind, prefix: prefix) { infos in
                    do {
                        try page(infos)
                    } catch {
                        pageFailed = true
                        throw error
                    }
                }
                return
            } catch {
                if pageFailed { throw error }
                try await wait(after: error, attempt: attempt)
            }
            attempt += 1
        }
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        let base = base
        try await retrying { () async throws(BackendError) in try await base.remove(handle) }
    }

    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        let base = base
        return try await retrying { () async throws(BackendError) in try await base.lock(handle, mode: mode, holder: holder) }
    }

    /// The batch through the base once (at its own pace), then each save that failed transiently
    /// retried alone (from its second attempt), up to `properties.connections` at once.
    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        var errors = await base.saveAll(batch)
        let again = errors.indices.filter { errors[$0]?.isTransient ?? false }
        guard !again.isEmpty else { return errors }
        let width = max(1, base.properties.connections)
        let firsts = errors
        let base = base
        let retried: [(Int, BackendError?)] = await withTaskGroup(of: (Int, BackendError?).self) { group in
            var results: [(Int, BackendError?)] = []
            var next = 0
            var running = 0
            while true {
                while next < again.count, running < width {
                    let index = again[next]
                    let first = firsts[index]!
                    next += 1
                    running += 1
                    group.addTask { [self] in
                        do throws(BackendError) {
                            try await retrying(after: first) { () async throws(BackendError) in try await base.save(batch[index]) }
                            return (index, nil)
                        } catch {
                            return (index, error)
                        }
                    }
                }
                guard let result = await group.next() else { break }
                running -= 1
                results.append(result)
            }
            return results
        }
        for (index, error) in retried { errors[index] = error }
        return errors
    }

    // MARK: The loop

    /// Runs `operation` until it succeeds, fails for good, or the policy stops retrying.
    private func retrying<T>(_ operation: () async throws(BackendError) -> T) async throws(BackendError) -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch {
                try await wait(after: error, attempt: attempt)
            }
            attempt += 1
        }
    }

    /// `retrying` for an operation whose first attempt already failed with `first`.
    private func retrying<T>(after first: BackendError, _ operation: () async throws(BackendError) -> T) async throws(BackendError) -> T {
        try await wait(after: first, attempt: 1)
        var attempt = 2
        while true {
            do {
                return try await operation()
            } catch {
                try await wait(after: error, attempt: attempt)
            }
            attempt += 1
        }
    }

    /// After attempt number `attempt` failed with `error`: waits before the next one, or throws
    /// the error (with `attempts` set) when it is not transient or the policy says no more.
    private func wait(after error: BackendError, attempt: Int) async throws(BackendError) {
        var error = error
        error.attempts = attempt
        guard error.isTransient, policy.allowsRetry(after: attempt) else { throw error }
        let asked = error.retryAfter.map { Int(min($0.rounded(.up), Double(Int32.max))) }
        switch policy.decide(beforeRetry: attempt, retryAfter: asked, jitter: jitter()) {
        case .wait(let seconds):
            let failed = error
            do {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            } catch {
                var cancelled = BackendError(
                    .cancelled, failed.operation, location: failed.location, reason: "cancelled while waiting to retry (\(failed.reason))")
                cancelled.attempts = attempt
                throw cancelled
            }
        case .giveUp(let why):
            error.reason += "; " + why
            throw error
        }
    }
}
