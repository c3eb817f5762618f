import FeedCrawlHTTP
import FeedCrawlSupport

/// `--deadline` for a store (what `RequestPolicy.apply` does for one HTTP attempt): an operation
/// started before the deadline ends at most `grace` (2 s, `RequestPolicy.deadlineGraceMs`) after
/// it, and one started after it fails at once; both throw `.cancelled` saying "deadline reached".
///
/// The bound holds whatever the store does: the operation runs in a task of its own, raced
/// against a timer; when the timer wins the operation's task is cancelled and the caller gets the
/// error at once, while the operation ends when it notices (a blocking call in flight finishes
/// on its thread; a save that lands meanwhile is whole, as every save is). A staged body whose
/// save was cut so must not be used again. A cancelled caller gets `.cancelled` at once too.
///
/// In `Backends.wrapped` it is the innermost wrapper, `Retrying(Paced(Deadline(store)))`, so each
/// attempt is bounded (and `RetryPolicy.decide` waits for no retry past the deadline). The
/// run's closing writes after the deadline go through a stack without it (`Backends.wrapped`
/// with a policy that has no deadline).
final class DeadlineBackend: BackendWrapper {
    /// The backend wrapped.
    let base: any Backend
    /// When the run stops.
    let deadline: ContinuousClock.Instant
    /// How long past the deadline an operation started before it may run (default 2 s).
    let grace: Duration

    /// `base` with every operation bounded by `deadline` (plus `grace`, default
    /// `RequestPolicy.deadlineGraceMs`).
    init(_ base: any Backend, deadline: ContinuousClock.Instant, grace: Duration = .milliseconds(RequestPolicy.deadlineGraceMs)) {
        self.base = base
        self.deadline = deadline
        self.grace = grace
    }

    /// Local and quick (no request), so not raced; after the deadline it fails at once.
    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile {
        try checkStart("stage", location(handle))
        return try base.stage(handle)
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        let base = base
        do {
            try checkStart("save", location(handle))
        } catch {
            staged.discard()
            throw error
        }
        do {
            try await bounded("save", location(handle)) { () async throws(BackendError) in
                try await base.save(handle, staged: staged, options: options)
            }
        } catch {
            // Cut (or failed for good): consumed, as `Backend.save` says of a failure that is not
            // transient. A save that lands meanwhile is not undone (a store's body serialises
            // `discard` with its save).
            if !error.isTransient { staged.discard() }
            throw error
        }
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        let base = base
        try await bounded("save", location(handle)) { () async throws(BackendError) in
            try await base.save(handle, bytes: bytes, options: options)
        }
    }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        let base = base
        return try await bounded("load", location(handle)) { () async throws(BackendError) in
            try await base.load(handle, range: range, maxBytes: maxBytes)
        }
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? {
        let base = base
        return try await bounded("stat", location(handle)) { () async throws(BackendError) in try await base.stat(handle) }
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        let base = base
        try await bounded("remove", location(handle)) { () async throws(BackendError) in try await base.remove(handle) }
    }

    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        let base = base
        let held = try await bounded("lock", location(handle)) { () async throws(BackendError) in
            LockBox(lock: try await base.lock(handle, mode: mode, holder: holder))
        }
        return held.lock
    }

    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        guard let first = batch.first else { return [] }
        let base = base
        do throws(BackendError) {
            return try await bounded("save", location(first.handle)) { () async throws(BackendError) in await base.saveAll(batch) }
        } catch {
            // Not started, or cut: none of it is known to be saved, and the staged bodies are
            // consumed (`.cancelled` is not transient).
            for request in batch { if case .staged(let staged) = request.body { staged.discard() } }
            return batch.map { var each = error; each.location = location($0.handle); return each }
        }
    }

    /// The listing runs in a task of its own that hands its pages over; `page` is called here, on
    /// the caller's task. Cut at the deadline like the rest.
    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        // OUT's location (a top-level file's, less its name) and the kind's folder, for messages.
        let top = base.location(FileHandle(.state, "manifest.json")!)
        let place = String(top.dropLast("manifest.json".count)) + kind.folder
        try checkStart("list", place)
        /// What the listing's task hands over.
        enum Event: Sendable {
            case page([FileInfo])
            case done
            case failed(BackendError)
        }
        let (events, sink) = AsyncStream<Event>.makeStream()
        let base = base
        let work = Task {
            do throws(BackendError) {
                try await base.list(kind, prefix: prefix) { infos in
                    try Task.checkCancellation()
                    sink.yield(.page(infos))
                }
                sink.yield(.done)
            } catch {
                sink.yield(.failed(error))
            }
            sink.finish()
        }
        let end = deadline + grace
        let reached = reachedError("list", place)
        let timer = Task {
            do {
                try await Task.sleep(until: end, clock: .continuous)
            } catch {
                return
            }
            sink.yield(.failed(reached))
            sink.finish()
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        let outcome: Result<Void, BackendError> = await withTaskCancellationHandler {
            for await event in events {
                switch event {
                case .page(let infos):
                    do {
                        try page(infos)
                    } catch let error as BackendError {
                        return .failure(error)
                    } catch {
                        return .failure(BackendError(.refused, "list", location: place, reason: "\(error)"))
                    }
                case .done:
                    return .success(())
                case .failed(let error):
                    return .failure(error)
                }
            }
            return .failure(BackendError(.cancelled, "list", location: place, reason: "cancelled"))
        } onCancel: {
            sink.yield(.failed(BackendError(.cancelled, "list", location: place, reason: "cancelled")))
            sink.finish()
        }
        try outcome.get()
    }

    // MARK: The race

    /// `.cancelled` "deadline reached" when the deadline has passed.
    private func checkStart(_ operation: String, _ location: String) throws(BackendError) {
        if ContinuousClock.now >= deadline { throw reachedError(operation, location) }
    }

    /// The error of an operation the deadline ended (or refused to start).
    private func reachedError(_ operation: String, _ location: String) -> BackendError {
        BackendError(.cancelled, operation, location: location, reason: "deadline reached")
    }

    /// Runs `operation` in a task of its own and returns its result, or throws "deadline reached"
    /// once `deadline + grace` passes first (cancelling it), or `.cancelled` when the caller is
    /// cancelled first; fails at once when the deadline has passed already.
    private func bounded<T: Sendable>(
        _ operation: String, _ location: String, _ body: @escaping @Sendable () async throws(BackendError) -> T
    ) async throws(BackendError) -> T {
        try checkStart(operation, location)
        let race = Race<T>()
        let end = deadline + grace
        let reached = reachedError(operation, location)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, BackendError>, Never>) in
                race.wait(continuation)
                let work = Task {
                    do throws(BackendError) {
                        race.finish(.success(try await body()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    do {
                        try await Task.sleep(until: end, clock: .continuous)
                    } catch {
                        return
                    }
                    race.finish(.failure(reached))
                }
                race.hold([work, timer])
            }
        } onCancel: {
            race.finish(.failure(BackendError(.cancelled, operation, location: location, reason: "cancelled")))
        }
        return try result.get()
    }
}

/// A lock carried out of a task (`BackendLock` is `Sendable`, this makes it a value).
private struct LockBox: Sendable {
    let lock: any BackendLock
}

/// The first of an operation, a timer and a cancellation to finish: its result resumes the
/// waiting caller once, and the tasks still running are cancelled.
private final class Race<T: Sendable>: @unchecked Sendable {
    private let lock = Lock()
    // Guarded by `lock`.
    /// The winner's outcome, once there is one.
    private var result: Result<T, BackendError>?
    /// The caller, once it waits.
    private var continuation: CheckedContinuation<Result<T, BackendError>, Never>?
    /// The operation's task and the timer's.
    private var tasks: [Task<Void, Never>] = []

    /// The caller waits on `continuation` (resumed at once when the race is over already).
    func wait(_ continuation: CheckedContinuation<Result<T, BackendError>, Never>) {
        let done: Result<T, BackendError>? = lock.withLock {
            if result == nil { self.continuation = continuation }
            return result
        }
        if let done { continuation.resume(returning: done) }
    }

    /// The tasks racing (cancelled at once when the race is over already).
    func hold(_ started: [Task<Void, Never>]) {
        let over: Bool = lock.withLock {
            if result == nil { tasks = started }
            return result != nil
        }
        if over { for task in started { task.cancel() } }
    }

    /// The first call wins: the caller is resumed with `outcome`, the racing tasks cancelled.
    func finish(_ outcome: Result<T, BackendError>) {
        let (waiting, running): (CheckedContinuation<Result<T, BackendError>, Never>?, [Task<Void, Never>]) = lock.withLock {
            guard result == nil else { return (nil, []) }
            result = outcome
            defer {
                continuation = nil
                tasks = []
            }
            return (continuation, tasks)
        }
        for task in running { task.cancel() }
        waiting?.resume(returning: outcome)
    }
}
