import FeedCrawlStorage
import FeedCrawlSupport

/// A run's backend in its two phases: the crawl through OUT's store wrapped with the run's whole
/// request policy (`--deadline` included: an operation after it fails at once), the end (the last
/// journal file, the commit, the clean-up) through the same store wrapped without the deadline,
/// from `end()` on (`DeadlineBackend`: "the run's closing writes after the deadline go through a
/// stack without it"). Everything of the run holds this one backend, so nothing needs telling.
final class PhasedBackend: Backend {
    /// The store with the run's policy (the crawl).
    let crawl: any Backend
    /// The same store without `--deadline` (the end).
    let closing: any Backend
    /// Whether the end has begun; default false.
    private let ended = Locked(false)

    /// `crawl` until `end()`, `closing` after.
    init(crawl: any Backend, closing: any Backend) {
        self.crawl = crawl
        self.closing = closing
    }

    /// From now on every operation goes through `closing`. Idempotent.
    func end() { ended.withLock { $0 = true } }

    /// The backend of the current phase.
    private var current: any Backend { ended.withLock { $0 } ? closing : crawl }

    var properties: BackendProperties { crawl.properties }

    func location(_ handle: FileHandle) -> String { crawl.location(handle) }

    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile { try current.stage(handle) }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        try await current.save(handle, staged: staged, options: options)
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        try await current.save(handle, bytes: bytes, options: options)
    }

    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] { await current.saveAll(batch) }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        try await current.load(handle, range: range, maxBytes: maxBytes)
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? { try await current.stat(handle) }

    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        try await current.list(kind, prefix: prefix, page)
    }

    func remove(_ handle: FileHandle) async throws(BackendError) { try await current.remove(handle) }

    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        try await current.lock(handle, mode: mode, holder: holder)
    }

    func reserve(_ handle: FileHandle) throws(BackendError) -> (any SpaceReservation)? { try current.reserve(handle) }
}
