import FeedCrawlHTTP

/// An archive opened for `feedcrawl manifest`, whatever its store (`Archive.open(.read)`): its
/// manifest and an unfinished run's journal in `directory` (OUT itself for a folder; a local
/// copy for object storage), which a `ManifestSnapshot` reads. `--verify` and `--repair` read
/// and remove the cache files through the archive's store, under its lock (`lock()`).
/// `close()` releases the lock and removes a copy.
public final class ArchiveReader: @unchecked Sendable {
    private let session: any ArchiveSession

    /// Opens the folder `outDirectory`, or `objectStore` when given (reached with `network`'s
    /// CA bundle, proxy and User-Agent). Throws `Crawler.SetupError` when it cannot be read.
    public init(outDirectory: String, objectStore: ObjectStoreTarget?, network: HTTPEngine.Configuration) throws {
        let archive = try Crawler.archive(outDirectory: outDirectory, objectStore: objectStore, network: network)
        session = try archive.open(.read) { _, _ in }
    }

    deinit {
        close()
    }

    /// The folder holding the manifest and journal (OUT, or the copy).
    public var directory: String { session.directory }

    /// Whether `directory` is a copy (the archive is in object storage).
    public var isCopy: Bool { session.publishes }

    /// The manifest as the archive names it: `OUT/manifest.json`, `s3://BUCKET/PREFIX/manifest.json`.
    public var manifestPath: String { session.displayPath(CacheLayout.manifestFileName) }

    /// Takes the archive's run lock, so no run changes it while it is verified or repaired.
    /// Throws `Crawler.SetupError` (`.locked`, `.leaseHeld`: another run holds it).
    public func lock() throws {
        try session.lock()
    }

    /// `CacheVerifier.verify` over the archive's cache.
    public func verify(_ snapshot: ManifestSnapshot) throws -> CacheVerification {
        try CacheVerifier.verify(snapshot, store: session.store)
    }

    /// `CacheVerifier.repair` of the archive's cache.
    public func repair(_ result: CacheVerification) -> (removed: [String], notRemoved: [String]) {
        CacheVerifier.repair(result, store: session.store)
    }

    /// Releases the lock (if taken) and removes a copy. Idempotent.
    public func close() {
        session.close()
    }
}
