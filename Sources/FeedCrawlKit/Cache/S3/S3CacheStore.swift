import Glibc
import FeedCrawlSupport
import FeedCrawlStorage

/// The cache as objects in S3-compatible storage: `PREFIX/cache/ab/<64 hex>.<ext>` under an
/// `S3Location`, the same names as on disk (`CacheLayout`), so a manifest reads the same.
///
/// - A body streams into a spool file, `<spool>/<key>.<12 hex digits>.part`, through the same
///   `LocalCacheSink` (and so the same `BodyDigester`) the local store uses; nothing is held
///   whole in memory.
/// - `commit` PUTs the spool file with its length and SHA-256 (`x-amz-checksum-sha256`: the
///   store refuses a body that does not match it, so a spool file changed after it was hashed
///   stores nothing), `Content-Type` from the name's extension and `Cache-Control`
///   `public, max-age=86400`; then removes the spool file, then DELETEs the replaced copy. An
///   S3 PUT is atomic: the object is complete or absent.
/// - `exists` makes no request (it runs under the pipeline's lock): it answers from the listing
///   `prepare()` takes, kept packed (16 bytes an object), and this store's own commits and
///   removes since.
/// - Requests run synchronously on the calling thread through a `BlockingBridge` (see there why
///   not a plain `Task` and a semaphore). The committer hands its batches to `commitAll`,
///   which uploads up to `uploadsAtOnce` at once, each attempt through the client's upload gate,
///   which backs off when the store says `SlowDown` (see `upload`).
///
/// Errors are `CacheStoreError`s with `code` 0 (no errno: a refused upload is not a full disk)
/// and the `S3Error`'s description as `reason` (e.g. `AccessDenied (403): …`), except `read` of a
/// missing object, whose code is `ENOENT` (`isMissing`).
final class S3CacheStore: CacheStore, Sendable {
    /// `Cache-Control` of every stored image: an entry's name is its URL's hash and its body
    /// never changes under that name, but a later run may replace the URL's image under another
    /// name and delete this one; a day lets a CDN or browser keep it without serving a deleted
    /// object for long.
    static let cacheControl = "public, max-age=86400"

    let client: S3Client
    let location: S3Location
    /// The folder spool files go in (created by `prepare()`).
    let spool: String
    private let bridge = BlockingBridge()
    private let held = Locked(HeldObjects())
    private let putCount = Locked(0)

    /// A store of the objects under `location` (its bucket must be `client`'s), spooling bodies
    /// in the folder `spool`. Makes no request (`prepare()` does).
    init(client: S3Client, location: S3Location, spool: String) {
        precondition(client.bucket == location.bucket, "S3CacheStore: the client is for another bucket")
        self.client = client
        self.location = location
        self.spool = spool
    }

    /// How many PUTs this store has made that succeeded.
    var uploads: Int { putCount.withLock { $0 } }

    /// `name` as a URL, for messages: `s3://BUCKET/PREFIX/name`.
    func displayPath(_ name: String) -> String {
        location.url(name)
    }

    // MARK: CacheStore

    /// Creates the spool folder and lists `PREFIX/cache/` once (ListObjectsV2, 1000 keys a
    /// request), keeping each object of the cache's shape as 16 bytes (packed key and size). A
    /// missing bucket or a refused signature fails here, before anything is fetched.
    func prepare() throws(CacheStoreError) {
        try LocalCacheStore.createDirectories(spool)
        var listed = HeldObjects()
        try listPages { objects in
            for object in objects {
                guard let key = CacheFiles.key(location.name(ofKey: object.key)) else { continue }
                listed.append(key: key, size: object.size)
            }
        }
        listed.seal()
        held.withLock { $0 = listed }
    }

    func makeSink(key: String) throws(CacheStoreError) -> any CacheSink {
        let name = key + "." + TemporaryName.next() + AtomicFile.temporarySuffix
        let path = spool + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheStoreError("write", path: path, code: errno) }
        return LocalCacheSink(owner: self, name: name, directory: AT_FDCWD, path: path, displayPath: path, fd: fd)
    }

    /// `commitAll` of the one body.
    func commit(_ sink: any CacheSink, as name: String, replacing: String?) throws(CacheStoreError) {
        if let error = commitAll([CacheCommit(sink: sink, name: name, replacing: replacing)]).first ?? nil {
            throw error
        }
    }

    /// Uploads that run at once in `commitAll` (16).
    static let uploadsAtOnce = 16

    /// Finished bodies waiting in the spool for their upload before downloads wait: 64 (so the
    /// spool holds at most the transfers in flight plus 64 bodies).
    var maxQueuedCommits: Int? { 4 * Self.uploadsAtOnce }

    /// Uploads the batch at once, `uploadsAtOnce` PUTs in flight, each as `commit` does.
    func commitAll(_ commits: [CacheCommit]) -> [CacheStoreError?] {
        var errors = [CacheStoreError?](repeating: nil, count: commits.count)
        var uploads: [Upload] = []
        var sinks: [LocalCacheSink?] = []
        var sizes = [Int64](repeating: 0, count: commits.count)
        for (index, commit) in commits.enumerated() {
            guard let sink = commit.sink as? LocalCacheSink, sink.owner === self else {
                preconditionFailure("S3CacheStore.commitAll: a sink of another store")
            }
            do throws(CacheStoreError) {
                try sink.close(fsync: false)
                let digest = sink.digest
                sizes[index] = digest.size
                uploads.append(Upload(
                    index: index, key: location.key(commit.name), file: sink.path,
                    sha256: Self.bytes(hex: digest.sha256), contentType: Self.contentType(name: commit.name, digest: digest)))
                sinks.append(sink)
            } catch {
                sink.unlink()
                errors[index] = error
                sinks.append(nil)
            }
        }
        let work = uploads
        let failures: [(Int, String)] = (try? bridge.run { [self] in await upload(work) })
            ?? uploads.map { ($0.index, "the upload was not run") }
        for (index, failure) in failures {
            errors[index] = CacheStoreError("store", path: displayPath(commits[index].name), code: 0, reason: failure)
        }
        for sink in sinks { sink?.unlink() }
        for (index, commit) in commits.enumerated() where errors[index] == nil {
            putCount.withLock { $0 += 1 }
            held.withLock { $0.record(commit.name, size: sizes[index]) }
            if let replacing = commit.replacing, replacing != commit.name, CacheLayout.isValidRelativePath(replacing) {
                _ = try? remove(replacing)
            }
        }
        return errors
    }

    func exists(_ name: String, bytes: Int64?) -> Bool {
        guard CacheLayout.isValidRelativePath(name), let key = CacheFiles.key(name) else { return false }
        guard let size = held.withLock({ $0.size(ofKey: key) }) else { return false }
        return bytes == nil || bytes == size
    }

    /// One page per ListObjectsV2 answer (up to 1000 names), relative to the prefix.
    func list(_ page: ([String]) -> Void) throws(CacheStoreError) {
        try listPages { objects in page(objects.map { location.name(ofKey: $0.key) }) }
    }

    /// HEAD (S3 answers a DELETE alike whether or not there was an object), then DELETE. Only
    /// names under `cache/` (no empty, `.` or `..` component) are removed; anything else throws
    /// EINVAL.
    @discardableResult
    func remove(_ name: String) throws(CacheStoreError) -> Bool {
        guard CacheLayout.isRemovable(name) else { throw CacheStoreError("remove", path: displayPath(name), code: EINVAL) }
        let key = location.key(name)
        let client = self.client
        let existed: Bool
        do {
            existed = try bridge.run {
                guard try await client.head(key: key) != nil else { return false }
                try await client.delete(key: key)
                return true
            }
        } catch {
            throw CacheStoreError("remove", path: displayPath(name), code: 0, reason: Self.reason(error))
        }
        held.withLock { $0.record(name, size: nil) }
        return existed
    }

    /// GETs the object into a spool file (`<spool>/read.<12 hex digits>.part`, streamed, never
    /// whole in memory), then reads that in 64 KiB chunks and removes it. Needs no `prepare()`
    /// (it creates the spool folder when missing).
    func read(_ name: String, _ chunk: (UnsafeRawBufferPointer) -> Void) throws(CacheStoreError) {
        try LocalCacheStore.createDirectories(spool)
        let key = location.key(name)
        let path = spool + "/read." + TemporaryName.next() + AtomicFile.temporarySuffix
        let client = self.client
        do {
            try bridge.run { _ = try await client.get(key: key, toFile: path) }
        } catch {
            let missing = (error as? S3Error).map { $0.code == .noSuchKey || $0.code == .notFound } ?? false
            throw CacheStoreError("read", path: displayPath(name), code: missing ? ENOENT : 0, reason: Self.reason(error))
        }
        defer { unlink(path) }
        try LocalCacheStore.readFile(path, in: AT_FDCWD, shown: path, chunk)
    }

    // MARK: Helpers

    /// Walks the listing of `PREFIX/cache/` a page at a time, on the calling thread.
    private func listPages(_ body: ([S3ListedObject]) -> Void) throws(CacheStoreError) {
        let folder = CacheLayout.cacheDirectoryName + "/"
        let prefix = location.key(folder)
        let client = self.client
        var continuation: String?
        repeat {
            let token = continuation
            let page: S3ListPage
            do {
                page = try bridge.run { try await client.list(prefix: prefix, continuation: token) }
            } catch {
                throw CacheStoreError("list", path: displayPath(folder), code: 0, reason: Self.reason(error))
            }
            body(page.objects)
            if page.nextContinuationToken != nil && page.nextContinuationToken == token {
                throw CacheStoreError("list", path: displayPath(folder), code: 0,
                                      reason: "the store returned the same continuation token twice")
            }
            continuation = page.nextContinuationToken
        } while continuation != nil
    }

    /// The `Content-Type` of an entry: its extension's format, else the one its structure check
    /// saw, else `application/octet-stream`.
    static func contentType(name: String, digest: BodyDigest) -> String {
        if let dot = name.lastIndex(of: "."), let format = ImageFormat(fileExtension: String(name[name.index(after: dot)...])) {
            return format.mimeType
        }
        return digest.structure.format?.mimeType ?? "application/octet-stream"
    }

    /// The bytes of a lowercase or uppercase hex string (pairs; a bad pair counts as 0).
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).map {
            UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) ?? 0
        }
    }

    /// What the store said (`S3Error.description`), or the error as text.
    static func reason(_ error: any Error) -> String {
        (error as? S3Error)?.description ?? String(describing: error)
    }
}
