import FeedCrawlHTTP
import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// The store on S3-compatible object storage: one bucket and prefix (`S3Location`), every file
/// the object `PREFIX/` + `FileHandle.path` (`location` says `s3://BUCKET/PREFIX/<path>`).
///
/// - **One attempt per call.** Every request is made once (`S3Client` with `singleAttempt`):
///   retries, back-off and pacing are the wrappers' (`RetryingBackend`, `PacedBackend`), and a
///   failure says how to take it (`S3Backend.error`: a 503 or 429 is `.pushedBack` with its
///   `Retry-After`, a 5xx or a lost connection `.transient`, a refusal `.refused` in the store's
///   own words).
/// - **Staged bodies** are spool files in a folder of this process's own,
///   `$TMPDIR/feedcrawl-spool-<pid>-<12 hex digits>` (`/tmp` without `TMPDIR`; mode 0700,
///   removed when the store goes; those of dead processes are removed when a store starts),
///   written on the engine's thread. `save(staged)` is one PUT of the file with its length,
///   `Content-Type` and `Cache-Control` from its kind, and its SHA-256 as
///   `x-amz-checksum-sha256` and as the signed payload hash (the store refuses a body that
///   changed after it was hashed). A staged body is consumed by a successful save or a
///   permanent failure; after a `.transient` or `.pushedBack` one it stays whole, so the
///   retrying wrapper can send it again (or the caller `discard()`s it).
/// - `load` is a GET (`Range: bytes=…` for a range), `stat` a HEAD, `list` ListObjectsV2 pages of
///   1,000 keys classified by `FileHandle.classify` (other keys are not reported), `remove` a
///   DELETE (no HEAD first), `saveAll` up to `properties.connections` saves at once.
/// - `lock` is `S3RunLease`: the store is asked once which kind it honours (conditional writes:
///   the lease object; ignored: lock objects under `locks/`); `.shared` gives a lock that
///   excludes nothing (object storage cannot share one).
///
/// Requests run on an `HTTPEngine` the store owns (the caller's CA bundle, proxy and
/// User-Agent; `S3Client.uploadsAtOnce` + 2 transfers), shut down when the store goes.
final class S3Backend: Backend, Sendable {
    /// Where the files are.
    let root: S3Location
    /// The store's requests, one attempt each.
    let client: S3Client
    /// The engine `client` runs on (owned).
    let engine: HTTPEngine
    /// The spool folder (absolute).
    let spool: String
    /// The lease's timing; default `ObjectLease()` (60 s, renewed every 20 s).
    let rule: ObjectLease
    /// Hears what a run should know and no error says (a dead run's lock taken over, the lock
    /// kind in use: `detail` true).
    let log: @Sendable (_ message: String, _ detail: Bool) -> Void
    /// Which lock kind the store honours, once asked.
    let lockKind = Locked<S3RunLease.Kind?>(nil)

    /// 16 saves at once; 64 staged bodies may wait for their save; the store cannot fill this
    /// machine's disk.
    let properties = BackendProperties(connections: S3Client.uploadsAtOnce, maxWaitingStaged: 64, canFillUp: false)

    /// A store of the objects under `location`, reached with `configuration` through an engine
    /// of `network`'s settings (its transfer count replaced). Makes no request. `spoolRoot` nil
    /// (default) is `$TMPDIR`, else `/tmp`; `rule` defaults to `ObjectLease()`; `log` to none.
    init(
        location: S3Location, configuration: S3Configuration, network: HTTPEngine.Configuration,
        spoolRoot: String? = nil, rule: ObjectLease = ObjectLease(),
        log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void = { _, _ in }
    ) throws(BackendError) {
        var settings = network
        settings.maxConcurrentTransfers = S3Client.uploadsAtOnce + 2
        do {
            engine = try HTTPEngine(configuration: settings)
        } catch {
            throw BackendError(.refused, "open", location: location.description, reason: "\(error)")
        }
        root = location
        client = S3Client(location: location, configuration: configuration, engine: engine)
        self.rule = rule
        self.log = log
        do {
            spool = try SpoolFolder.make(in: spoolRoot ?? SpoolFolder.defaultRoot())
        } catch {
            engine.shutdown()
            throw BackendError.system("stage", location: error.path, code: error.code)
        }
    }

    deinit {
        engine.shutdown()
        SpoolFolder.remove(spool)
    }

    /// `s3://BUCKET/PREFIX/<path>`.
    func location(_ handle: FileHandle) -> String {
        root.url(handle.path)
    }

    /// The object key of `handle`.
    func key(_ handle: FileHandle) -> String {
        root.key(handle.path)
    }

    // MARK: Saving

    /// A spool file `<12 hex digits>.part` in the spool folder, for `handle`'s kind; no request.
    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile {
        guard !handle.isPartial else { throw refused("stage", handle, "a partial handle can only be removed") }
        let path = spool + "/" + SpoolFolder.uniqueName()
        do {
            return try SpoolFile(path: path, owner: self, handle: handle)
        } catch {
            throw BackendError.system("stage", location: path, code: error.code)
        }
    }

    /// One PUT of the spool file (length, `Content-Type`, `Cache-Control`, SHA-256: `options.sha256`
    /// or read from the file once); the file is removed after a success or a permanent failure
    /// and kept whole after a transient one (`.transient`, `.pushedBack`).
    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        guard let file = staged as? SpoolFile, file.owner === self, let stagedFor = file.handle else {
            staged.discard()
            throw refused("save", handle, "the staged body was not staged by this store")
        }
        guard !handle.isPartial, handle.kind == stagedFor.kind else {
            file.consume()
            throw refused("save", handle, "the staged body was staged for \(stagedFor), another kind")
        }
        let path: String
        let sha256: [UInt8]
        do throws(FileSystemError) {
            guard let closed = try file.closedPath() else {
                throw FileSystemError("save", path: location(handle), code: EBADF)
            }
            path = closed
            if let given = options.sha256 { sha256 = given } else { sha256 = try file.sha256() }
        } catch where error.code == EBADF {
            throw refused("save", handle, "the staged body was already saved or discarded")
        } catch {
            file.consume()
            throw BackendError.system("save", location: error.path, code: error.code)
        }
        do {
            try await client.put(key: key(handle), file: path, sha256: sha256, contentType: handle.kind.contentType(handle.name),
                                 cacheControl: handle.kind.cacheControl)
        } catch {
            let failure = self.error(error, "save", handle)
            // Kept whole for another attempt only when one may help.
            if !failure.isTransient { file.consume() }
            throw failure
        }
        file.consume()
    }

    /// One PUT from memory, with the same headers as a staged body's.
    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        guard !handle.isPartial else { throw refused("save", handle, "a partial handle can only be removed") }
        do {
            try await client.put(key: key(handle), bytes: bytes, sha256: options.sha256,
                                 contentType: handle.kind.contentType(handle.name), cacheControl: handle.kind.cacheControl)
        } catch {
            throw self.error(error, "save", handle)
        }
    }

    /// Up to `properties.connections` (16) saves at once, each one attempt; the errors in order.
    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        await withTaskGroup(of: (Int, BackendError?).self) { group in
            var errors = [BackendError?](repeating: nil, count: batch.count)
            var next = 0
            func start() {
                let index = next
                let request = batch[index]
                next += 1
                group.addTask {
                    do throws(BackendError) {
                        try await self.save(request)
                        return (index, nil)
                    } catch {
                        return (index, error)
                    }
                }
            }
            while next < min(batch.count, properties.connections) { start() }
            while let (index, error) = await group.next() {
                errors[index] = error
                if next < batch.count { start() }
            }
            return errors
        }
    }

    // MARK: Reading

    /// One GET (`Range: bytes=…` for a range; a HEAD for an empty one). A body over `maxBytes`
    /// is refused, never cut; so is a range the object does not cover.
    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        do {
            guard let range else { return try await client.get(key: key(handle), range: nil, maxBytes: maxBytes) }
            guard range.lowerBound >= 0 else { throw refused("load", handle, "a negative range") }
            guard Int64(range.count) <= maxBytes else {
                throw refused("load", handle, "the range has \(range.count) bytes, more than the \(maxBytes) this load takes")
            }
            if range.isEmpty {
                // No request can ask for no bytes: the object must be there and reach the range.
                guard let info = try await client.head(key: key(handle)) else {
                    throw BackendError(.notFound, "load", location: location(handle), reason: "no such object")
                }
                guard range.lowerBound <= info.size else {
                    throw refused("load", handle, "the object has \(info.size) bytes, the range starts at \(range.lowerBound)")
                }
                return []
            }
            return try await client.get(key: key(handle), range: range)
        } catch {
            throw self.error(error, "load", handle)
        }
    }

    /// One HEAD: the size and `Last-Modified`, or nil on a 404.
    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? {
        do {
            guard let info = try await client.head(key: key(handle)) else { return nil }
            return FileInfo(handle: handle, size: info.size, modified: info.lastModified.flatMap(ObjectLease.httpDate).map(Double.init))
        } catch {
            throw self.error(error, "stat", handle)
        }
    }

    /// One DELETE, no HEAD first; a missing object is no error.
    func remove(_ handle: FileHandle) async throws(BackendError) {
        do {
            try await client.delete(key: key(handle))
        } catch let error as S3Error where error.status == 404 && error.code != .noSuchBucket {
            return  // S3 answers 204 either way; a store that says 404 means the same
        } catch {
            throw self.error(error, "remove", handle)
        }
    }

    // MARK: Errors

    /// A `.refused` error of `operation` on `handle`.
    func refused(_ operation: String, _ handle: FileHandle, _ reason: String) -> BackendError {
        BackendError(.refused, operation, location: location(handle), reason: reason)
    }

    /// `error` of `operation` on `handle` as a `BackendError` (`S3Backend.error(_:_:location:secrets:)`).
    func error(_ error: any Error, _ operation: String, _ handle: FileHandle) -> BackendError {
        Self.error(error, operation, location: location(handle), secrets: client.configuration.credentials.secrets)
    }
}
