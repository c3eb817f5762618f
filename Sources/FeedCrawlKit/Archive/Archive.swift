import FeedCrawlHTTP

/// Where a run keeps everything under OUT: images, the manifest and shard parts, the journal,
/// the run lock and the contact sheet. One seam, one type per store: `FolderArchive` (OUT is a
/// folder) and `S3Archive` (OUT is `s3://BUCKET/PREFIX`); a third store is one more type.
///
/// The crawl, the merge and `feedcrawl manifest` each `open` the archive once for their work and
/// get an `ArchiveSession`: the lock is held, the state files are in the session's local
/// folder (a folder archive's is OUT itself; an object store's is a staging folder the state
/// was copied into), and the session stores what the work leaves there where it belongs, in
/// the crash-safe order (the manifest before anything is deleted).
protocol Archive: Sendable {
    /// Opens the archive for `work`. `log` hears what is worth a line about the store (which
    /// lock it allows, `detail`; a dead run's lock taken over). Throws `Crawler.SetupError`:
    /// `.locked`/`.leaseHeld` when another run holds the lock, `.output` when the store cannot
    /// be read; `ShardMerge.NothingToMerge` for a merge without shard parts.
    func open(_ work: ArchiveWork, log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void) throws
        -> any ArchiveSession
}

/// What an archive is opened for: it decides the lock taken and the state loaded.
enum ArchiveWork: Sendable, Equatable {
    /// A crawl of the whole OUT (nil) or of one shard: that state's lock; its manifest (a
    /// shard's part, and the merged manifest) and a killed run's journal.
    case crawl(Shard?)
    /// A merge of the shard parts: OUT's lock; the merged manifest, and the parts and journals
    /// of the latest shard count.
    case merge
    /// Reading (`feedcrawl manifest`): the manifest and an unfinished run's journal, no lock
    /// (`ArchiveSession.lock()` takes it for `--verify`).
    case read
}

/// An opened archive: the lock held, the state in `directory`, and the calls that store what
/// the work leaves there. Used by one work at a time.
protocol ArchiveSession: AnyObject, Sendable {
    /// The local folder the work reads and writes its manifest and journal in.
    var directory: String { get }
    /// The cache the work's images are committed to and read from.
    var store: any CacheStore { get }
    /// Links of the contact sheet start with this (`--public-url`); empty: relative.
    var linkBase: String { get }
    /// Whether what the work saves in `directory` is stored elsewhere by `publish` (object
    /// storage). Until then the stored manifest still names the files the new one dropped, so
    /// none is removed during the run (a replaced copy waits for the sweep).
    var publishes: Bool { get }
    /// How many images the session stored elsewhere (uploads to object storage; 0 for a folder).
    var uploads: Int { get }
    /// Where `name` (relative to OUT) lives, for messages: `OUT/name`, `s3://BUCKET/PREFIX/name`.
    func displayPath(_ name: String) -> String
    /// The work's journal file is open (after a killed run's was folded): keep its lines safe
    /// while the work goes on (object storage ships them every few seconds). `warn` hears of
    /// trouble doing so.
    func journalOpened(path: String, warn: @escaping @Sendable (String) -> Void)
    /// The new manifest is saved at `path` in `directory`: store it where it belongs. Called
    /// before anything is deleted; a throw keeps the journal, and nothing is deleted.
    func publish(manifest path: String) throws
    /// Keeps the lock while the work runs; `onLost` (what happened) when it is lost, after
    /// which the work must store nothing more.
    func keepHolding(onLost: @escaping @Sendable (String) -> Void)
    /// Takes OUT's lock for a session opened to `.read` (`--verify`, `--repair`); throws as
    /// `Archive.open` does when another run holds it.
    func lock() throws
    /// After the work: keeps a journal whose manifest was not stored, and stores the contact
    /// sheet the work wrote (`sheet`). Returns what could not be done.
    func conclude(sheet: Bool) -> (storageProblem: String?, contactSheetProblem: String?)
    /// Releases the lock and removes the working copies. Idempotent.
    func close()
}

extension Crawler {
    /// The archive `configuration` names: its `objectStore`, else the folder `outDirectory`.
    /// `network` (CA bundle, proxy, User-Agent) reaches an object store.
    static func archive(
        outDirectory: String, objectStore: ObjectStoreTarget?, network: HTTPEngine.Configuration
    ) throws(SetupError) -> any Archive {
        guard let objectStore else { return FolderArchive(outDirectory: outDirectory) }
        return try S3Archive(target: objectStore, network: network)
    }
}
