import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlStorage

extension S3Archive: Archive {
    func open(_ work: ArchiveWork, log: @escaping @Sendable (String, Bool) -> Void) throws
        -> any ArchiveSession
    {
        try S3Session(archive: self, work: work, log: log)
    }
}

/// A session of an `S3Archive`: the work runs in a local staging folder
/// (`ObjectStoreTarget.stagingDirectory`), with
///
/// 1. the run lease taken first (`PREFIX/.lock`, a shard's `PREFIX/shards/N/K/.lock`, or lock
///    objects under `locks/` where the store ignores conditional writes: `S3RunLease`); held
///    by a live run, the work stops with `SetupError.leaseHeld` and changes nothing;
/// 2. the state pulled into the staging folder: the manifest (a shard's part, and the merged
///    manifest), the journal objects a killed run left (folded as on disk); for a merge, the
///    latest shard count's parts and journals;
/// 3. images committed to `S3CacheStore` (spooled, uploaded with their SHA-256);
/// 4. the journal's new lines uploaded every `ObjectStoreTarget.journalInterval` seconds
///    (`JournalShipper`);
/// 5. the new manifest uploaded once it is saved and before anything is deleted; then the
///    journal objects deleted; the work then deletes orphans and evicted objects (through the
///    store); `conclude` uploads the contact sheet's pages (`index.html` last) and deletes
///    those of an earlier, larger sheet; `close` releases the lease.
///
/// So no stored manifest names an object that is not there. A run killed at any moment loses
/// at most the outcomes of the last `journalInterval` seconds.
final class S3Session: ArchiveSession, @unchecked Sendable {
    let archive: S3Archive
    let directory: String
    let store: any CacheStore
    let work: ArchiveWork
    /// `""` for the whole OUT, `shards/N/K` for a shard.
    private let state: String
    private let log: @Sendable (String, Bool) -> Void
    private let mutex = Lock()
    // Guarded by `lock`.
    private var lease: S3RunLease?
    private var pulledJournal: [String] = []
    private var shipper: JournalShipper?
    private var published = false
    private var closed = false

    init(archive: S3Archive, work: ArchiveWork, log: @escaping @Sendable (String, Bool) -> Void) throws {
        self.archive = archive
        self.work = work
        self.log = log
        let target = archive.target
        switch work {
        case .crawl(let shard):
            state = shard?.directory ?? ""
            directory = target.stagingDirectory(shard: shard)
        case .merge:
            state = ""
            directory = target.stagingDirectory(shard: nil, purpose: "merge")
        case .read:
            state = ""
            directory = target.stagingDirectory(shard: nil, purpose: "read-\(getpid())")
        }
        store = archive.cacheStore(spool: directory + "/" + Crawler.spoolFolder)
        if work != .read { try lock() }
        do {
            try pull()
        } catch {
            close()
            if error is ShardMerge.NothingToMerge { throw error }
            throw Crawler.SetupError.output("cannot read the archive at \(target.location): \(error)")
        }
    }

    var linkBase: String { archive.target.publicURL ?? "" }
    var publishes: Bool { true }

    func displayPath(_ name: String) -> String { archive.displayPath(name) }

    func lock() throws {
        let name = S3Archive.statePath(state, CacheLayout.lockFileName)
        let taken = try archive.takeLease(name, log: log)
        mutex.withLock { lease = taken }
    }

    /// Copies the work's state into the staging folder (emptied first but for a crawl's feed
    /// page cache, `pages/`).
    private func pull() throws {
        try Crawler.clearStaging(directory)
        switch work {
        case .crawl(let shard):
            let layout = CacheLayout(outDirectory: directory, shard: shard)
            try AtomicFile.createDirectories(layout.stateDirectory)
            try archive.pull(S3Archive.statePath(state, CacheLayout.manifestFileName), to: layout.manifestPath)
            if shard != nil { try archive.pull(CacheLayout.manifestFileName, to: layout.mergedManifestPath) }
            let names = try archive.pullJournal(state: state, to: layout.journalPath)
            mutex.withLock { pulledJournal = names }
        case .read:
            let layout = CacheLayout(outDirectory: directory)
            try archive.pull(CacheLayout.manifestFileName, to: layout.manifestPath)
            _ = try archive.pullJournal(state: "", to: layout.journalPath)
        case .merge:
            try pullShards()
        }
    }

    /// For a merge: the merged manifest, and the parts and journal objects of the shard count N
    /// written last (`shards/N/K/manifest.json` or `shards/N/K/journal/…`). A killed shard's
    /// journal is folded into the copy of its part; its objects stay until that shard's next
    /// run stores its part.
    private func pullShards() throws {
        let parts = try archive.list("shards/").compactMap { object in
            ShardMerge.ShardPart(Array(object.key.split(separator: "/").dropFirst()), written: object.lastModified)
        }
        let count = try ShardMerge.latestShardCount(parts, shown: archive.displayPath("shards"))
        try archive.pull(CacheLayout.manifestFileName, to: CacheLayout(outDirectory: directory).manifestPath)
        for index in 0..<count {
            guard let shard = Shard(index: index, count: count) else { continue }
            let part = CacheLayout(outDirectory: directory, shard: shard)
            try AtomicFile.createDirectories(part.stateDirectory)
            try archive.pull(S3Archive.statePath(shard.directory, CacheLayout.manifestFileName), to: part.manifestPath)
            _ = try archive.pullJournal(state: shard.directory, to: part.journalPath)
            var info = stat()
            if stat(part.journalPath, &info) == 0, info.st_size == 0 { unlink(part.journalPath) }
        }
    }

    func journalOpened(path: String, warn: @escaping @Sendable (String) -> Void) {
        guard case .crawl = work else { return }
        let shipper = JournalShipper(
            archive: archive, path: path, state: state, startedMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        mutex.withLock { self.shipper = shipper }
        shipper.start(interval: archive.target.journalInterval, warn: warn)
    }

    func publish(manifest path: String) throws {
        let (lease, shipper) = mutex.withLock { (self.lease, self.shipper) }
        shipper?.stop()
        let leaseName = S3Archive.statePath(state, CacheLayout.lockFileName)
        guard let lease, lease.isHeld else {
            throw Crawler.SetupError.output(
                "lost the run lease \(displayPath(leaseName)): \(lease?.lost ?? .takenOver); nothing was stored")
        }
        try archive.push(path, as: S3Archive.statePath(state, CacheLayout.manifestFileName), contentType: "application/json")
        let journal = mutex.withLock { () -> [String] in
            published = true
            return pulledJournal
        }
        // Their outcomes are in the manifest now; one left is folded again, harmlessly. (A
        // merge leaves the shards' journal objects to their shards' next runs.)
        _ = archive.delete(journal + (shipper?.shippedNames ?? []))
    }

    func keepHolding(onLost: @escaping @Sendable (String) -> Void) {
        guard let lease = mutex.withLock({ self.lease }) else { return }
        let name = displayPath(S3Archive.statePath(state, CacheLayout.lockFileName))
        lease.keepRenewing { loss in onLost("lost the run lease \(name): \(loss); stopping") }
    }

    func conclude(sheet: Bool) -> (storageProblem: String?, contactSheetProblem: String?) {
        let (lease, shipper, published) = mutex.withLock { (self.lease, self.shipper, self.published) }
        shipper?.stop()
        var result: (storageProblem: String?, contactSheetProblem: String?) = (nil, nil)
        if !published, lease?.isHeld == true, let shipper {
            // The manifest was not stored: keep every outcome for the next run.
            do {
                try shipper.shipRest()
            } catch {
                result.storageProblem = "cannot upload the journal: \(error)"
            }
        }
        // Every page, `index.html` last; then the pages of an earlier, larger sheet are deleted
        // (best effort: the new pages link none of them).
        let pages = ContactSheet.pageFiles(in: directory)
        if published, sheet, !pages.isEmpty {
            do {
                for name in pages {
                    try archive.push(directory + "/" + name, as: name, contentType: "text/html; charset=utf-8")
                }
                let names = (try? archive.list(ContactSheet.pagePrefix))?.map(\.key) ?? []
                _ = archive.delete(ContactSheet.stalePages(names, pages: pages.count))
            } catch {
                result.contactSheetProblem = "cannot store the contact sheet: \(error)"
            }
        }
        return result
    }

    /// How many images this session uploaded.
    var uploads: Int { (store as? S3CacheStore)?.uploads ?? 0 }

    func close() {
        let lease = mutex.withLock { () -> S3RunLease? in
            defer {
                self.lease = nil
                closed = true
            }
            return closed ? nil : self.lease
        }
        if let lease { archive.release(lease) }
        // A crawl keeps its feed page cache (`pages/`, for `--page-ttl`) for the next run here.
        if case .crawl = work {
            try? Crawler.clearStaging(directory)
        } else {
            try? Crawler.removeTree(directory)
        }
    }
}
