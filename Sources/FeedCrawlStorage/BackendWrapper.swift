import FeedCrawlSupport

/// A backend around another (restic's wrappers embed the backend they wrap): every operation a
/// wrapper does not declare itself goes to `base` unchanged. `RetryingBackend`, `PacedBackend`,
/// `DeadlineBackend` and `DryRunBackend` each declare only what they change.
///
/// `saveAll` is not forwarded: a wrapper that declares none gets `Backend`'s, which saves each
/// request through the wrapper's own `save`, so what the wrapper does to a save it does to a
/// batch too.
protocol BackendWrapper: Backend {
    /// The backend wrapped.
    var base: any Backend { get }
}

extension BackendWrapper {
    var properties: BackendProperties { base.properties }

    func location(_ handle: FileHandle) -> String { base.location(handle) }

    func reserve(_ handle: FileHandle) throws(BackendError) -> (any SpaceReservation)? {
        try base.reserve(handle)
    }

    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile {
        try base.stage(handle)
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        try await base.save(handle, staged: staged, options: options)
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        try await base.save(handle, bytes: bytes, options: options)
    }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        try await base.load(handle, range: range, maxBytes: maxBytes)
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? {
        try await base.stat(handle)
    }

    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        try await base.list(kind, prefix: prefix, page)
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        try await base.remove(handle)
    }

    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        try await base.lock(handle, mode: mode, holder: holder)
    }
}
