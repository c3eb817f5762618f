import FeedCrawlSupport

/// An OUT that is a folder: the work reads and writes OUT itself, under advisory locks on
/// `OUT/.lock` (a shard: shared on `OUT/.lock`, exclusive on its own `shards/N/K/.lock`); files
/// are written in place (atomically), so there is nothing to publish.
struct FolderArchive: Archive {
    /// The folder.
    let outDirectory: String

    func open(_ work: ArchiveWork, log: @escaping @Sendable (String, Bool) -> Void) throws
        -> any ArchiveSession
    {
        let layout: CacheLayout
        switch work {
        case .crawl(let shard): layout = CacheLayout(outDirectory: outDirectory, shard: shard)
        case .merge, .read: layout = CacheLayout(outDirectory: outDirectory)
        }
        let session = FolderSession(layout: layout)
        if work != .read { try session.hold(Crawler.lock(layout)) }
        return session
    }
}

/// A session of a `FolderArchive`.
final class FolderSession: ArchiveSession, @unchecked Sendable {
    let layout: CacheLayout
    let store: any CacheStore
    private let locks = Locked<[RunLock]>([])

    init(layout: CacheLayout) {
        self.layout = layout
        store = LocalCacheStore(layout: layout)
    }

    func hold(_ taken: [RunLock]) {
        locks.withLock { $0 += taken }
    }

    var directory: String { layout.outDirectory }
    var linkBase: String { "" }
    var publishes: Bool { false }
    var uploads: Int { 0 }

    func displayPath(_ name: String) -> String { layout.absolutePath(name) }

    func journalOpened(path: String, warn: @escaping @Sendable (String) -> Void) {}

    func publish(manifest path: String) throws {}

    func keepHolding(onLost: @escaping @Sendable (String) -> Void) {}

    func lock() throws {
        do {
            hold([try RunLock(path: layout.lockPath)])
        } catch .held {
            throw Crawler.SetupError.locked(layout.lockPath)
        } catch {
            throw Crawler.SetupError.output("cannot lock \(layout.outDirectory): \(error)")
        }
    }

    func conclude(sheet: Bool) -> (storageProblem: String?, contactSheetProblem: String?) { (nil, nil) }

    func close() {
        for lock in locks.withLock({ taken in defer { taken = [] }; return taken }) { lock.release() }
    }
}
