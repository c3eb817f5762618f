import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

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

    /// An archive reached through an engine with `network`'s CA bundle, proxy settings and
    /// User-Agent, and `S3CacheStore.uploadsAtOnce` + 2 transfers (uploads, the journal, the
    /// lease). An engine that cannot start is `Crawler.SetupError.output`.
    init(target: ObjectStoreTarget, network: HTTPEngine.Configuration) throws(Crawler.SetupError) {
        self.target = target
        var settings = network
        settings.maxConcurrentTransfers = S3CacheStore.uploadsAtOnce + 2
        do {
            engine = try HTTPEngine(configuration: settings)
        } catch {
            throw .output("cannot reach \(target.location): \(error)")
        }
        client = S3Client(location: target.location, configuration: target.configuration, engine: engine)
    }

    deinit {
        engine.shutdown()
    }

    /// `s3://BUCKET/PREFIX/name`.
    func displayPath(_ name: String) -> String {
        target.location.url(name)
    }

    /// Runs `body` to completion on the bridge's own executor and returns its result.
    private func blocking<T: Sendable>(_ body: @escaping @Sendable (S3Client) async throws -> T) throws -> T {
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

    /// Every object whose name starts with `start` (`shards/`, `index-`; names relative to the
    /// prefix), in key order.
    func list(_ start: String) throws -> [S3ListedObject] {
        let location = target.location
        let objects: [S3ListedObject] = try blocking { client in
            var found: [S3ListedObject] = []
            try await client.listAll(prefix: location.key(start)) { object in
                var relative = object
                relative.key = location.name(ofKey: object.key)
                found.append(relative)
            }
            return found
        }
        return objects.sorted { $0.key < $1.key }
    }

    /// DELETEs each of `names`; returns the ones that could not be deleted.
    func delete(_ names: [String]) -> [String] {
        names.filter { name in
            let key = target.location.key(name)
            return (try? blocking { try await $0.delete(key: key) }) == nil
        }
    }

    /// Takes the run lease `name` (`.lock`, or a shard's `shards/N/K/.lock`) for this process
    /// (`Crawler.leaseHolder()`): held by a live run, `Crawler.SetupError.leaseHeld` saying who
    /// holds it; a store that fails, `.output` with what it said. `log` hears which kind of
    /// lock the store allows (`detail`) and a dead run's lock taken over.
    func takeLease(
        _ name: String, log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void = { _, _ in }
    ) throws(Crawler.SetupError) -> S3RunLease {
        do throws(S3RunLease.Failure) {
            return try acquireLease(name, holder: Crawler.leaseHolder(), log: log)
        } catch {
            switch error {
            case .held(let holder, _):
                throw .leaseHeld(Crawler.heldMessage(displayPath(name), holder: holder, ttl: target.lease.ttl))
            case .store(let failure) where failure.transport != nil:
                // No answer at all (no connection, or none in time): the store is unreachable.
                throw .output("the store at \(target.configuration.endpoint ?? "AWS S3") could not be reached "
                    + "(taking the run lease \(displayPath(name))): \(failure)")
            case .store(let failure):
                throw .output("cannot take the run lease \(displayPath(name)): \(failure)")
            }
        }
    }

    /// Takes the run lease `name`, or throws why not (`S3RunLease.acquire`).
    private func acquireLease(
        _ name: String, holder: String, log: @escaping @Sendable (String, Bool) -> Void
    ) throws(S3RunLease.Failure) -> S3RunLease {
        let key = target.location.key(name)
        let rule = target.lease
        let client = self.client
        do {
            return try bridge.run {
                try await S3RunLease.acquire(client: client, key: key, holder: holder, rule: rule, log: log)
            }
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
        let names = try list(Self.statePath(state, Self.journalFolder) + "/").map(\.key)
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

