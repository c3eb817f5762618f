import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// OUT in memory: a dictionary of files behind a lock, for tests of the archive and of the
/// wrappers (restic's `mem` backend). Staged bodies are buffers; a save is one assignment (atomic
/// by the lock); locks are held in this process only (`exclusive` or `shared`), and released when
/// released (there is no holder to die). Nothing is durable beyond the process.
///
/// `properties` can be set (a test of how the archive adapts to a store that runs many saves at
/// once or bounds its staged bodies); default 4 connections, no bound on staged bodies, cannot
/// fill up. `failNext` makes the next operations of a kind fail, as a store on a bad day would.
final class MemoryBackend: Backend {
    /// A file: its bytes and when it was saved (seconds since 1970).
    private struct Entry {
        var bytes: [UInt8]
        var modified: Double
    }

    /// Who holds a lock.
    private enum Holders {
        case exclusive(id: Int, holder: String)
        case shared([Int: String])
    }

    /// An injected failure (`failNext`).
    private struct Fault {
        var operation: String
        var count: Int
        var kind: BackendError.Kind
        var retryAfter: Double?
        /// Only calls on files of this kind (nil: any).
        var fileKind: FileKind?
    }

    /// Everything the store holds, behind `state`'s lock.
    private struct State {
        var files: [FileHandle: Entry] = [:]
        var locks: [FileHandle: Holders] = [:]
        var nextLock = 0
        var properties: BackendProperties
        var faults: [Fault] = []
    }

    /// The files, locks, properties and injected failures.
    private let state: Locked<State>

    /// How many files a `list` page holds at most: 100 (so that listings come in several pages).
    static let pageSize = 100

    /// An empty store with `properties` (default: 4 connections, no bound on staged bodies,
    /// cannot fill up).
    init(properties: BackendProperties = BackendProperties(connections: 4, maxWaitingStaged: nil, canFillUp: false)) {
        state = Locked(State(properties: properties))
    }

    /// What the store says it can do; settable for tests.
    var properties: BackendProperties {
        get { state.withLock { $0.properties } }
        set { state.withLock { $0.properties = newValue } }
    }

    /// Makes the next `count` (default 1) calls of `operation` (`save`, `load`, `stat`, `list`,
    /// `remove`, `lock`; a save of a batch counts each of its files) fail with `kind` (default
    /// `.transient`) and `retryAfter` (default nil), as a store that answered so would, before
    /// they change anything; with `on`, only calls on files of that kind (default nil: any). A
    /// failed save of a staged body leaves it whole when the failure is transient, and consumes
    /// it otherwise (`Backend.save`).
    func failNext(
        _ operation: String, count: Int = 1, kind: BackendError.Kind = .transient, retryAfter: Double? = nil,
        on fileKind: FileKind? = nil
    ) {
        state.withLock {
            $0.faults.append(Fault(operation: operation, count: count, kind: kind, retryAfter: retryAfter, fileKind: fileKind))
        }
    }

    func location(_ handle: FileHandle) -> String {
        "memory:" + handle.path
    }

    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile {
        MemoryStagedFile(owner: self)
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        guard let body = staged as? MemoryStagedFile, body.owner === self else {
            staged.discard()
            throw BackendError(.refused, "save", location: location(handle), reason: "a body staged by another store")
        }
        do {
            try injectedFault("save", handle)
        } catch {
            // A transient failure leaves the body whole for the retry; any other consumes it.
            if !error.isTransient { body.discard() }
            throw error
        }
        guard let bytes = body.take() else {
            throw BackendError(.refused, "save", location: location(handle), reason: "the staged body was saved or discarded already")
        }
        store(bytes, as: handle)
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        try injectedFault("save", handle)
        store(bytes, as: handle)
    }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        try injectedFault("load", handle)
        guard let bytes = state.withLock({ $0.files[handle]?.bytes }) else {
            throw BackendError(.notFound, "load", location: location(handle), reason: "no such file", code: ENOENT)
        }
        let size = Int64(bytes.count)
        let wanted = range ?? 0..<size
        guard wanted.lowerBound >= 0, wanted.upperBound <= size else {
            throw BackendError(.refused, "load", location: location(handle),
                               reason: "the range \(wanted.lowerBound)..<\(wanted.upperBound) is past the end (\(size) bytes)")
        }
        guard Int64(wanted.count) <= maxBytes else {
            throw BackendError(.refused, "load", location: location(handle),
                               reason: "\(wanted.count) bytes, more than the \(maxBytes) asked for")
        }
        return Array(bytes[Int(wanted.lowerBound)..<Int(wanted.upperBound)])
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? {
        try injectedFault("stat", handle)
        return state.withLock { state in
            state.files[handle].map { FileInfo(handle: handle, size: Int64($0.bytes.count), modified: $0.modified) }
        }
    }

    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        if let fault = takeFault("list", kind) {
            throw BackendError(fault.kind, "list", location: "memory:" + kind.folder, reason: "injected failure", retryAfter: fault.retryAfter)
        }
        let found: [FileInfo] = state.withLock { state in
            state.files.compactMap { handle, entry in
                guard handle.kind == kind, handle.name.hasPrefix(prefix) else { return nil }
                return FileInfo(handle: handle, size: Int64(entry.bytes.count), modified: entry.modified)
            }
        }
        var start = 0
        while start < found.count {
            let end = min(start + Self.pageSize, found.count)
            do {
                try page(Array(found[start..<end]))
            } catch let error as BackendError {
                throw error
            } catch is CancellationError {
                throw BackendError(.cancelled, "list", location: "memory:" + kind.folder, reason: "cancelled")
            } catch {
                throw BackendError(.refused, "list", location: "memory:" + kind.folder, reason: "\(error)")
            }
            start = end
        }
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        try injectedFault("remove", handle)
        _ = state.withLock { $0.files.removeValue(forKey: handle) }
    }

    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        try injectedFault("lock", handle)
        guard handle.kind == .lock else {
            throw BackendError(.refused, "lock", location: location(handle), reason: "not a lock (\(handle.kind.rawValue))")
        }
        let taken: Result<Int, BackendError> = state.withLock { state in
            state.nextLock += 1
            let id = state.nextLock
            switch (state.locks[handle], mode) {
            case (nil, .exclusive):
                state.locks[handle] = .exclusive(id: id, holder: holder)
            case (nil, .shared):
                state.locks[handle] = .shared([id: holder])
            case (.shared(var holders), .shared):
                holders[id] = holder
                state.locks[handle] = .shared(holders)
            case (.exclusive(_, let other), _):
                return .failure(BackendError(.lockHeld, "lock", location: location(handle), reason: "held by \(other)"))
            case (.shared(let holders), .exclusive):
                let names = holders.values.sorted().joined(separator: ", ")
                return .failure(BackendError(.lockHeld, "lock", location: location(handle), reason: "held (shared) by \(names)"))
            }
            return .success(id)
        }
        return MemoryLock(owner: self, handle: handle, id: try taken.get())
    }

    /// Lets the lock `id` on `handle` go (`MemoryLock.release`).
    fileprivate func unlock(_ handle: FileHandle, id: Int) {
        state.withLock { state in
            switch state.locks[handle] {
            case .exclusive(id, _):
                state.locks[handle] = nil
            case .shared(var holders):
                holders[id] = nil
                state.locks[handle] = holders.isEmpty ? nil : .shared(holders)
            default:
                break
            }
        }
    }

    /// Stores `bytes` as `handle` (one assignment: atomic), stamped with the system clock.
    private func store(_ bytes: [UInt8], as handle: FileHandle) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let modified = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        state.withLock { $0.files[handle] = Entry(bytes: bytes, modified: modified) }
    }

    /// Throws the injected failure of `operation`, if one is armed.
    private func injectedFault(_ operation: String, _ handle: FileHandle) throws(BackendError) {
        guard let fault = takeFault(operation, handle.kind) else { return }
        throw BackendError(fault.kind, operation, location: location(handle), reason: "injected failure", retryAfter: fault.retryAfter)
    }

    /// The next injected failure of `operation` on a file of `kind` (counted down), or nil.
    private func takeFault(_ operation: String, _ kind: FileKind) -> Fault? {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: { $0.operation == operation && ($0.fileKind ?? kind) == kind })
            else { return nil }
            let fault = state.faults[index]
            state.faults[index].count -= 1
            if state.faults[index].count <= 0 { state.faults.remove(at: index) }
            return fault
        }
    }
}

/// A body staged in memory: a buffer, written by one thread at a time, taken once by `save`.
final class MemoryStagedFile: StagedFile, @unchecked Sendable {
    /// The store that staged it (its `save` takes only its own).
    let owner: MemoryBackend
    private let lock = Lock()
    // Guarded by `lock`.
    private var bytes: [UInt8] = []
    /// Whether it can still be written and saved.
    private var open = true

    /// A new, empty body of `owner`'s.
    init(owner: MemoryBackend) {
        self.owner = owner
    }

    var size: Int64 { lock.withLock { Int64(bytes.count) } }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        try lock.withLock { () throws(BackendError) in
            guard open else {
                throw BackendError(.refused, "save", location: "memory:staged", reason: "the staged body was saved or discarded already")
            }
            bytes.append(contentsOf: chunk)
        }
    }

    func discard() {
        lock.withLock {
            open = false
            bytes = []
        }
    }

    /// The bytes, once (nil after `discard` or an earlier `take`).
    fileprivate func take() -> [UInt8]? {
        lock.withLock {
            guard open else { return nil }
            open = false
            defer { bytes = [] }
            return bytes
        }
    }
}

/// A lock of a `MemoryBackend`: held until released.
final class MemoryLock: BackendLock, @unchecked Sendable {
    /// The store whose lock table holds it.
    private let owner: MemoryBackend
    /// The lock.
    private let handle: FileHandle
    /// Which holder it is in the table.
    private let id: Int
    /// True until released.
    private let held = Locked(true)

    /// The lock `handle` held as `id` in `owner`'s table.
    fileprivate init(owner: MemoryBackend, handle: FileHandle, id: Int) {
        self.owner = owner
        self.handle = handle
        self.id = id
    }

    var isHeld: Bool { held.withLock { $0 } }

    /// Nothing to renew: the lock is held until released.
    func keepHolding(onLost: @escaping @Sendable (String) -> Void) {}

    func release() async {
        let wasHeld = held.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        if wasHeld { owner.unlock(handle, id: id) }
    }
}
