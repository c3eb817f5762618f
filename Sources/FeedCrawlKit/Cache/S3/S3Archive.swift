import Glibc

/// An OUT in S3-compatible object storage (`--out s3://BUCKET/PREFIX`): where it is, how to
/// reach it, and the local staging folder a run works in.
public struct ObjectStoreTarget: Sendable {
    /// The bucket and prefix the archive lives under.
    public var location: S3Location
    /// Credentials, region and endpoint (`S3Configuration.fromEnvironment`).
    public var configuration: S3Configuration
    /// Links of `index.html` start with this URL (`--public-url`) instead of being relative;
    /// default nil (relative links, for a bucket served over HTTP as it is).
    public var publicURL: String? = nil
    /// Seconds between two uploads of the journal's new lines while a run goes on: a run killed
    /// at any moment loses at most this much of its outcomes. The next run folds the rest and
    /// fetches none of those images again; the images of the outcomes lost it fetches again (and
    /// stores the same bytes under the same names). Default 5.
    public var journalInterval: Double = 5
    /// The folder staging folders go in; default `$TMPDIR`, else `/tmp`.
    public var stagingRoot: String
    /// The run lease's timing; default `ObjectLease()` (60 s ttl, renewed every 20 s).
    public var lease = ObjectLease()

    /// A target at `location` reached with `configuration`; the other settings take their
    /// defaults.
    public init(location: S3Location, configuration: S3Configuration) {
        self.location = location
        self.configuration = configuration
        let tmp = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        stagingRoot = tmp.isEmpty ? "/tmp" : tmp
    }

    /// The staging folder of runs on this target (with `shard`, the shard's):
    /// `STAGING_ROOT/feedcrawl-s3-<16 hex digits of the endpoint, bucket, prefix and shard>`.
    /// It keeps the feed page cache (`pages/`) between runs on this machine; everything else in
    /// it (the manifest's copy, the journal, the spool of images in flight) is removed when a run
    /// starts and when it ends.
    public func stagingDirectory(shard: Shard?, purpose: String = "run") -> String {
        let identity = [configuration.endpoint ?? "aws:" + configuration.region, location.bucket, location.prefix,
                        shard?.description ?? "", purpose].joined(separator: "\n")
        return stagingRoot + "/feedcrawl-s3-" + String(SHA256.hex(identity).prefix(16))
    }
}

/// The objects of an OUT in object storage other than the cache's images (which go through
/// `S3CacheStore`): the manifest and shard parts, the journal objects of a run, the contact
/// sheet and the run lease. A run works on copies in a local staging folder: `pull` before,
/// `push` after, and `shipJournal` in between.
///
/// Every call blocks its thread (through a `BlockingBridge`); the archive has its own
/// `HTTPEngine`, so storage requests never wait behind image transfers.
final class S3Archive: @unchecked Sendable {
    let target: ObjectStoreTarget
    let engine: HTTPEngine
    let client: S3Client
    private let bridge = BlockingBridge(label: "feedcrawl.s3-archive")

    /// The journal objects of the state folder `state` live under `state/journal/`.
    static let journalFolder = "journal"
    /// `Cache-Control` of the manifest and the contact sheet: they change every run.
    static let noCache = "no-cache"

    /// An archive reached through an engine of `connections` transfers with the crawl's CA
    /// bundle, proxy settings and User-Agent.
    init(target: ObjectStoreTarget, connections: Int, userAgent: String, caInfo: String?, proxy: String?,
         noProxy: String?) throws {
        self.target = target
        engine = try HTTPEngine(configuration: .init(
            maxConcurrentTransfers: max(1, connections), userAgent: userAgent, caInfo: caInfo, proxy: proxy,
            noProxy: noProxy))
        client = S3Client(location: target.location, configuration: target.configuration, engine: engine)
    }

    deinit {
        engine.shutdown()
    }

    /// `s3://BUCKET/PREFIX/name`.
    func displayPath(_ name: String) -> String {
        "s3://\(target.location.bucket)/\(target.location.key(name))"
    }

    /// Runs `body` to completion on the bridge's own executor and returns its result.
    func blocking<T: Sendable>(_ body: @escaping @Sendable (S3Client) async throws -> T) throws -> T {
        let client = self.client
        return try bridge.run { try await body(client) }
    }

    /// A cache store of this archive's `cache/`, spooling in `spool`.
    func cacheStore(spool: String) -> S3CacheStore {
        S3CacheStore(client: client, location: target.location, spool: spool)
    }

    /// GETs `name` into `path` (through `path.part`, renamed when whole). False when the store
    /// has no such object.
    @discardableResult
    func pull(_ name: String, to path: String) throws -> Bool {
        let key = target.location.key(name)
        let part = path + AtomicFile.temporarySuffix
        do {
            _ = try blocking { try await $0.get(key: key, toFile: part) }
        } catch let error as S3Error where error.code == .noSuchKey || error.code == .notFound {
            unlink(part)
            unlink(path)
            return false
        }
        guard rename(part, path) == 0 else {
            let code = errno
            unlink(part)
            throw FileSystemError("rename", path: path, code: code)
        }
        return true
    }

    /// PUTs the file at `path` as `name`, with its length and SHA-256 (the store refuses a body
    /// that does not match it).
    func push(_ path: String, as name: String, contentType: String, cacheControl: String? = noCache) throws {
        let sha256 = try Self.sha256(ofFile: path)
        let key = target.location.key(name)
        _ = try blocking {
            try await $0.put(key: key, file: path, sha256: sha256, contentType: contentType, cacheControl: cacheControl)
        }
    }

    /// PUTs `bytes` as `name`.
    func put(_ bytes: [UInt8], as name: String, contentType: String) throws {
        let key = target.location.key(name)
        _ = try blocking { try await $0.put(key: key, bytes: bytes, contentType: contentType) }
    }

    /// GETs `name` into memory (at most `maxBytes`).
    func get(_ name: String, maxBytes: Int64) throws -> [UInt8] {
        let key = target.location.key(name)
        return try blocking { try await $0.get(key: key, maxBytes: maxBytes) }
    }

    /// Every object under `folder/` (names relative to the prefix), in key order.
    func list(_ folder: String) throws -> [S3ListedObject] {
        let prefix = target.location.key(folder.hasSuffix("/") ? folder : folder + "/")
        let lead = target.location.prefix.isEmpty ? "" : target.location.prefix + "/"
        let objects: [S3ListedObject] = try blocking { client in
            var found: [S3ListedObject] = []
            try await client.listAll(prefix: prefix) { found.append($0) }
            return found
        }
        return objects.map { object in
            var relative = object
            if relative.key.hasPrefix(lead) { relative.key = String(relative.key.dropFirst(lead.count)) }
            return relative
        }.sorted { $0.key < $1.key }
    }

    /// DELETEs each of `names`; returns the ones that could not be deleted.
    func delete(_ names: [String]) -> [String] {
        names.filter { name in
            let key = target.location.key(name)
            return (try? blocking { try await $0.delete(key: key) }) == nil
        }
    }

    /// Takes the run lease `name` (`.lock`, or a shard's `shards/N/K/.lock`).
    func acquireLease(_ name: String, holder: String) throws(S3RunLease.Failure) -> S3RunLease {
        let key = target.location.key(name)
        let rule = target.lease
        let client = self.client
        do {
            return try bridge.run { try await S3RunLease.acquire(client: client, key: key, holder: holder, rule: rule) }
        } catch S3RunLease.Failure.store(let error) where error.code == .accessDenied {
            // A store may refuse a PUT into a bucket that does not exist as AccessDenied
            // (SeaweedFS does); a listing says which.
            let prefix = target.location.key("")
            let listed: S3Error? = try? blocking { client in
                do {
                    _ = try await client.list(prefix: prefix, maxKeys: 1)
                    return nil
                } catch let error as S3Error {
                    return error
                }
            }
            if let listed, listed.code == .noSuchBucket { throw .store(listed) }
            throw .store(error)
        } catch let failure as S3RunLease.Failure {
            throw failure
        } catch {
            throw .store(S3Error(operation: "PUT", key: key, message: "\(error)"))
        }
    }

    /// Releases `lease` (deletes it when it is still this run's).
    func release(_ lease: S3RunLease) {
        _ = try? bridge.run { await lease.release() }
    }

    /// The journal objects under `state` (`STATE/journal/…`), oldest first, GET into the file
    /// at `path` one after the other (the file is created, or truncated). Returns their names,
    /// for `delete` once a manifest holding their outcomes is stored.
    func pullJournal(state: String, to path: String) throws -> [String] {
        let names = try list(Self.statePath(state, Self.journalFolder)).map(\.key)
        guard !names.isEmpty else { return [] }
        let fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        defer { close(fd) }
        for name in names {
            let bytes = try get(name, maxBytes: JournalShipper.maxObjectBytes + 1)
            // Each object holds whole lines; one cut short (never written so) is ended here.
            var chunk = bytes
            if let last = chunk.last, last != 0x0A { chunk.append(0x0A) }
            try chunk.withUnsafeBytes { raw in try FileIO.writeAll(fd, raw, path: path) }
        }
        return names
    }

    /// `state/name`, or `name` for the whole OUT's state (`state` empty).
    static func statePath(_ state: String, _ name: String) -> String {
        state.isEmpty ? name : state + "/" + name
    }

    /// The SHA-256 of the file at `path`, read in 64 KiB chunks.
    static func sha256(ofFile path: String) throws -> [UInt8] {
        let fd = try FileIO.open(path, O_RDONLY)
        defer { close(fd) }
        var hasher = SHA256()
        try FileIO.readChunks(fd, path: path) { hasher.update($0) }
        return hasher.finalize()
    }
}

/// Ships a run's journal to object storage while the run goes on: every `interval` seconds the
/// lines the journal file gained since the last upload (whole lines only, at most
/// `maxObjectBytes` an object) are PUT as `STATE/journal/<run>-<sequence>`, where `<run>` is
/// the run's start in milliseconds and a random tag (so keys sort oldest first) and
/// `<sequence>` counts from 000001. A failed upload is tried again at the next tick (the lines
/// stay in the file). The objects are deleted once a manifest holding their outcomes is stored.
final class JournalShipper: @unchecked Sendable {
    /// The most one journal object holds (8 MiB).
    static let maxObjectBytes: Int64 = 8 << 20

    private let archive: S3Archive
    private let path: String
    private let prefix: String
    private let lock = Lock()
    // Guarded by `lock`.
    private var offset: Int64 = 0
    private var sequence = 0
    private var shipped: [String] = []
    private var stopped = false
    private var failure: String?
    private var timer: Task<Void, Never>?

    /// A shipper of the journal file at `path` into `state/journal/`, for the run started at
    /// `startedMilliseconds`. Starts nothing (`start`).
    init(archive: S3Archive, path: String, state: String, startedMilliseconds: Int64) {
        self.archive = archive
        self.path = path
        var stamp = String(max(startedMilliseconds, 0))
        while stamp.utf8.count < 13 { stamp = "0" + stamp }
        prefix = S3Archive.statePath(state, S3Archive.journalFolder) + "/" + stamp + "-"
            + String(SHA256.hex(stamp + "\(getpid())\(UInt64.random(in: 0...UInt64.max))").prefix(8)) + "-"
    }

    /// Ships every `interval` seconds until `stop()`; `warn` hears of the first failure after
    /// a success (and of a recovery).
    func start(interval: Double, warn: @escaping @Sendable (String) -> Void) {
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(max(interval, 0.05) * 1000)))
                guard let self, !Task.isCancelled else { return }
                if let problem = self.shipNow() { warn(problem) }
            }
        }
        lock.withLock { timer = task }
    }

    /// Uploads the journal's new whole lines now. Returns a message when an upload failed for the
    /// first time since the last success.
    @discardableResult
    func shipNow() -> String? {
        lock.withLock { () -> String? in
            guard !stopped else { return nil }
            do {
                try shipLocked()
                failure = nil
                return nil
            } catch {
                let first = failure == nil
                failure = "\(error)"
                return first ? "cannot upload the journal (tried again in a few seconds): \(error)" : nil
            }
        }
    }

    /// Stops the ticks and waits for an upload in progress. Idempotent.
    func stop() {
        let task = lock.withLock { () -> Task<Void, Never>? in
            stopped = true
            defer { timer = nil }
            return timer
        }
        task?.cancel()
    }

    /// After `stop()`: uploads what is left (for a run whose manifest could not be stored, so the
    /// next run folds it). Throws when an upload fails.
    func shipRest() throws {
        try lock.withLock { () throws in try shipLocked() }
    }

    /// The names of the journal objects shipped so far.
    var shippedNames: [String] { lock.withLock { shipped } }

    private func shipLocked() throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }  // no journal yet
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        while Int64(info.st_size) > offset {
            let want = Int(min(Int64(info.st_size) - offset, Self.maxObjectBytes))
            var bytes = [UInt8](repeating: 0, count: want)
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset)) }
            guard got > 0 else { return }
            bytes.removeLast(want - got)
            // Whole lines only: the rest waits for its newline.
            guard let end = bytes.lastIndex(of: 0x0A) else { return }
            bytes.removeLast(bytes.count - end - 1)
            var number = String(sequence + 1)
            while number.utf8.count < 6 { number = "0" + number }
            let name = prefix + number
            try archive.put(bytes, as: name, contentType: "application/x-ndjson")
            sequence += 1
            offset += Int64(bytes.count)
            shipped.append(name)
        }
    }
}
