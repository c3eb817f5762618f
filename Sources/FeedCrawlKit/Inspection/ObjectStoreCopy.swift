import Glibc

/// An OUT in object storage, copied for `feedcrawl manifest --out s3://…`: its `manifest.json`
/// and the journal objects of an unfinished run, in a local folder (`directory`) that a
/// `ManifestSnapshot` reads as it reads an OUT on disk. `--verify` and `--repair` read and
/// remove the objects themselves, under the run lease (`lock()`). `close()` removes the copy.
public final class ObjectStoreCopy: @unchecked Sendable {
    /// The local folder holding the copy (`manifest.json`, and `manifest.journal` when a run
    /// left journal objects).
    public let directory: String
    /// `s3://BUCKET/PREFIX`.
    public let location: S3Location
    private let archive: S3Archive
    private var lease: S3RunLease?

    /// Copies the manifest and the journal objects of `target` into its staging folder for
    /// reading. The `HTTPEngine` settings (CA bundle, proxy, User-Agent) are the crawl's.
    public init(target: ObjectStoreTarget, network: HTTPEngine.Configuration) throws {
        location = target.location
        directory = target.stagingDirectory(shard: nil, purpose: "read-\(getpid())")
        archive = try S3Archive(target: target, network: network)
        let layout = CacheLayout(outDirectory: directory)
        do {
            try Crawler.clearStaging(directory)
            try archive.pull(CacheLayout.manifestFileName, to: layout.manifestPath)
            _ = try archive.pullJournal(state: "", to: layout.journalPath)
        } catch {
            try? Crawler.removeTree(directory)
            throw error
        }
    }

    deinit {
        close()
    }

    /// `s3://BUCKET/PREFIX/manifest.json`.
    public var manifestPath: String { archive.displayPath(CacheLayout.manifestFileName) }

    /// Takes the OUT's run lease, so no run changes the archive while it is verified or repaired.
    /// Returns nil when taken, else why not (another run holds it: what it says).
    public func lock() -> String? {
        do throws(Crawler.SetupError) {
            lease = try archive.takeLease(CacheLayout.lockFileName)
            return nil
        } catch {
            return error.description
        }
    }

    /// `CacheVerifier.verify` over the objects under `cache/`.
    public func verify(_ snapshot: ManifestSnapshot) throws -> CacheVerification {
        try CacheVerifier.verify(snapshot, store: archive.cacheStore(spool: directory + "/" + Crawler.spoolFolder))
    }

    /// `CacheVerifier.repair` of the objects under `cache/`.
    public func repair(_ result: CacheVerification, in snapshot: ManifestSnapshot) -> (removed: [String], notRemoved: [String]) {
        CacheVerifier.repair(result, in: snapshot, store: archive.cacheStore(spool: directory + "/" + Crawler.spoolFolder))
    }

    /// Releases the lease (if taken) and removes the copy. Idempotent.
    public func close() {
        if let lease {
            archive.release(lease)
            self.lease = nil
        }
        try? Crawler.removeTree(directory)
    }
}
