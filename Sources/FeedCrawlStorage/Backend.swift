import FeedCrawlHTTP
import FeedCrawlSupport

/// Every file under OUT, images and the archive's own files alike, is saved, loaded, looked
/// at, listed, removed and locked through one `Backend` (restic's `internal/backend` is the
/// model). Three stores implement it, one type each, all internal to this module: a folder
/// (`FolderBackend`), S3-compatible object storage (`S3Backend`) and memory (`MemoryBackend`,
/// for tests). What every store needs around it (retries, pacing when the store pushes back,
/// `--deadline`, `--dry-run`) is a wrapper around any backend (`RetryingBackend`,
/// `PacedBackend`, `DeadlineBackend`, `DryRunBackend`), so each of those lives once.
/// `Backends.open` builds the stack a run uses; nothing outside this module knows which store
/// is behind it, and a new store (GCS, Azure) is one more type here.
///
/// The guarantees every store keeps (the conformance suite, `BackendConformance`, holds each
/// store to them):
/// - a save is atomic: a reader sees the file complete, or the earlier one, or none; never part
///   of one (a folder: rename; S3: one PUT; memory: one assignment);
/// - a save is durable when it returns (a folder `fsync`s unless `SaveOptions.durable` is false),
///   so a file saved later may name it;
/// - a staged body that is neither saved nor discarded leaves nothing under a name `list`
///   reports as a file of its kind (a folder's `.part` files are listed as `partial`, and swept);
/// - a save of a staged body that throws a transient error (`BackendError.isTransient`) leaves
///   the body as it was, whole, so it can be saved again (the retrying wrapper does); any other
///   failure consumes it and stores nothing;
/// - `load` of a missing file throws `.notFound`, of a range past its end `.refused`;
/// - `remove` of a missing file succeeds;
/// - a lock is held by one holder at a time (`exclusive`), or by any number of `shared`
///   holders and no exclusive one; a lock whose holder died is released (a folder: by the
///   kernel; an object store: once unrenewed for the lease's time to live).
package protocol Backend: Sendable {
    /// What the store can do; callers adapt to it (how many saves to run at once, whether to
    /// bound staged bodies), never to which store it is.
    var properties: BackendProperties { get }

    /// Where `handle` lives, for messages: `OUT/cache/ab/….jpg`, `s3://BUCKET/PREFIX/manifest.json`.
    func location(_ handle: FileHandle) -> String

    /// A new staged body that will become `handle` (or another name of the same kind and folder,
    /// given to `save(_:staged:options:)`): written locally, chunk by chunk, by one thread at a
    /// time (a download streams into it on the engine's thread). Cheap, makes no request.
    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile

    /// Stores the staged body as `handle` (its folder must be the one it was staged for),
    /// atomically, then forgets the staged body. A staged body is consumed by a successful save
    /// or a permanent failure: saving it again then fails, and discarding it is harmless. After
    /// a failure retrying may mend (`.transient`, `.pushedBack`: `BackendError.isTransient`)
    /// it stays whole, so that `RetryingBackend` can send it again; a caller that gives up
    /// `discard()`s it.
    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError)

    /// Stores `bytes` as `handle`, atomically.
    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError)

    /// The bytes of `handle` (only `range`, when given). A missing file throws `.notFound`; a
    /// range that reaches past the end, or a file (or range) over `maxBytes`, `.refused`. Larger
    /// files are read a range at a time.
    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8]

    /// What the store holds under `handle`, or nil when nothing.
    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo?

    /// Every file of `kind` whose name starts with `prefix`, a page at a time, in no particular
    /// order. Staged bodies a killed process left are reported too, as partial handles
    /// (`FileHandle.isPartial`: remove them with `remove`). A folder lists only the folder
    /// `prefix` names and what is below it (`shards/` walks `OUT/shards`), never another
    /// kind's folder. An error `page` throws ends the listing; a `BackendError` comes out as it
    /// was thrown.
    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError)

    /// Removes `handle`; a missing file is no error.
    func remove(_ handle: FileHandle) async throws(BackendError)

    /// Takes the lock `handle` (kind `.lock`) for `holder` (what another run is shown), without
    /// waiting: `.lockHeld` when another holder has it.
    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock

    /// Holds back room on the store's device under `handle` (kind `.state`) for writes that must
    /// not fail for lack of space (a run's final writes): a store whose saves can fail so
    /// (`properties.canFillUp`, a local folder) returns a reservation to grow and release; the
    /// others nil. Wrappers pass it through.
    func reserve(_ handle: FileHandle) throws(BackendError) -> (any SpaceReservation)?

    /// Saves every request of `batch`, as many at once as the store takes
    /// (`properties.connections`), and returns each one's error (nil: saved), in order. When it
    /// returns every save that succeeded is durable. The default saves one after the other.
    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?]
}

/// Room held back on a store's device (`Backend.reserve`): real blocks, not a sparse hole.
package protocol SpaceReservation: AnyObject, Sendable {
    /// Bytes held so far.
    var bytes: Int64 { get }
    /// Holds at least `bytes`; throws `.full` when the device has not that much room (the
    /// reservation then stays what it was).
    func grow(to bytes: Int64) throws(BackendError)
    /// Gives the room back (removes the reservation's file). Idempotent.
    func release()
}

extension Backend {
    package func reserve(_ handle: FileHandle) throws(BackendError) -> (any SpaceReservation)? { nil }

    package func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        var errors: [BackendError?] = []
        errors.reserveCapacity(batch.count)
        for request in batch {
            do throws(BackendError) {
                try await save(request)
                errors.append(nil)
            } catch {
                errors.append(error)
            }
        }
        return errors
    }

    /// Saves one request of a batch.
    package func save(_ request: SaveRequest) async throws(BackendError) {
        switch request.body {
        case .bytes(let bytes): try await save(request.handle, bytes: bytes, options: request.options)
        case .staged(let staged): try await save(request.handle, staged: staged, options: request.options)
        }
    }
}

/// What a store can do (restic's `Properties`).
package struct BackendProperties: Sendable, Equatable {
    /// Saves worth running at once (`saveAll`): 1 for a folder, 16 for an object store.
    package var connections: Int
    /// How many staged bodies may wait for their save before writers should wait: each holds an
    /// open file (a folder's `.part`, an object store's spool file), so a store slower than the
    /// downloads must hold them back rather than run out of file descriptors (256 for a folder,
    /// 64 for an object store); nil: no bound (memory).
    package var maxWaitingStaged: Int?
    /// Whether a save can fail for lack of room on a device this process shares with what it
    /// must still write (a local folder): a run then reserves room for its final writes.
    package var canFillUp: Bool

    package init(connections: Int, maxWaitingStaged: Int? = nil, canFillUp: Bool = false) {
        self.connections = connections
        self.maxWaitingStaged = maxWaitingStaged
        self.canFillUp = canFillUp
    }
}

/// One save of a `saveAll` batch.
package struct SaveRequest: Sendable {
    package enum Body: Sendable {
        case bytes([UInt8])
        case staged(any StagedFile)
    }

    package var handle: FileHandle
    package var body: Body
    package var options: SaveOptions

    package init(_ handle: FileHandle, body: Body, options: SaveOptions = SaveOptions()) {
        self.handle = handle
        self.body = body
        self.options = options
    }
}

/// How a file is saved.
package struct SaveOptions: Sendable, Equatable {
    /// The body's SHA-256 (32 bytes) when the caller already knows it (a download hashed as it
    /// streamed); a store that needs it (S3 sends it as `x-amz-checksum-sha256`, and the store
    /// refuses a body that does not match) computes it otherwise. Default nil.
    package var sha256: [UInt8]?
    /// Whether the file must be durable when `save` returns (a folder `fsync`s it); default
    /// true. Kept feed pages are saved with false: a lost one is fetched again.
    package var durable: Bool

    package init(sha256: [UInt8]? = nil, durable: Bool = true) {
        self.sha256 = sha256
        self.durable = durable
    }
}

/// A body being written before `Backend.save` stores it: a `.part` file next to its destination
/// (a folder), a spool file (S3), a buffer (memory). The engine writes it as a `BodySink`
/// (`write`, `discard`); it is then handed to `save`, once, or discarded.
package protocol StagedFile: BodySink {
    /// Bytes written so far.
    var size: Int64 { get }
}

/// What a store holds under a name.
package struct FileInfo: Sendable, Equatable {
    /// The file (`isPartial` for a staged body a killed process left).
    package var handle: FileHandle
    /// Length in bytes; nil when the listing does not say (a folder lists names without a
    /// `stat` each; `Backend.stat` always says).
    package var size: Int64?
    /// When it was last written, in seconds since 1970, by the store's clock; nil when unknown.
    package var modified: Double?

    package init(handle: FileHandle, size: Int64?, modified: Double? = nil) {
        self.handle = handle
        self.size = size
        self.modified = modified
    }
}

/// How a lock is taken.
package enum LockMode: Sendable, Equatable {
    /// One holder, and no shared one (a run, a merge).
    case exclusive
    /// Any number of holders, and no exclusive one (shards on one OUT). A store that cannot
    /// share a lock (object storage) gives every shared request a lock that excludes nothing.
    case shared
}

/// A lock taken with `Backend.lock`.
package protocol BackendLock: AnyObject, Sendable {
    /// Whether it is still held (an object store's lease can be lost).
    var isHeld: Bool { get }
    /// Keeps it held while the work goes on (an object store renews its lease); `onLost` hears,
    /// once, why it was lost: the work must then save nothing more.
    func keepHolding(onLost: @escaping @Sendable (String) -> Void)
    /// Releases it. Idempotent.
    func release() async
}
