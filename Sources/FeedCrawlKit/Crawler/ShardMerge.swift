import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP

/// `feedcrawl manifest merge`: joins the latest part of every shard of the last `--shard K/N`
/// crawl into `OUT/manifest.json` (and `OUT/index.html`), atomically, then applies
/// `--cache-max` and removes orphans, as a whole run would. Idempotent.
///
/// The set is complete when every shard 0..<N has a part whose run started after the time the
/// last complete merge recorded for that shard (or any part, the first time). A shard whose
/// part is missing, or not newer, is named (`problems`); what there is is still merged, and
/// running that shard again and merging again completes the set. A part whose run was stopped
/// by a signal or `--deadline` does not count either. A journal a killed shard left is folded
/// into its part first (its part then still counts as not new: the run did not end).
public struct ShardMerge: Sendable {
    /// What the merge did.
    public struct Report: Sendable {
        /// N, the number of shards merged.
        public var shards: Int
        /// Whether every shard's part was there and new.
        public var complete: Bool
        /// One line per shard that kept the set from being complete, e.g. `shard 2/4: missing`.
        public var problems: [String]
        /// Items and images in the merged manifest, by status.
        public var counts = StatusCounts()
        /// Items per source and status in the merged manifest.
        public var bySource: [String: StatusCounts] = [:]
        public var evictedFiles = 0
        public var evictedBytes: Int64 = 0
        public var orphansRemoved = 0
        public var overCacheMax = false
        /// Bytes and number of the distinct files the merged manifest references; 0 when it
        /// could not be written.
        public var cacheBytes: Int64 = 0
        public var cacheFiles = 0
        /// The sources the shards' last runs crawled (as their parts record them); default empty.
        public var sourceNames: [String] = []
        public var manifestPath: String
        public var startedAt: Date
        public var finishedAt: Date
        /// Set when the manifest could not be written.
        public var storageProblem: String?
    }

    /// Why there is nothing to merge.
    public struct NothingToMerge: Error, CustomStringConvertible {
        public var description: String
    }

    public let outDirectory: String
    /// `--cache-max`: least recently used files are evicted until the cache fits; default 2 GiB.
    public var cacheMaxBytes: Int64 = 2 << 30
    /// Merge the shard parts of an OUT in object storage (`--out s3://…`) instead of
    /// `outDirectory`; default nil.
    public var objectStore: ObjectStoreTarget? = nil
    /// The CA bundle, proxy settings and User-Agent of requests to object storage; default
    /// `HTTPEngine.Configuration()`.
    public var network = HTTPEngine.Configuration()

    public init(outDirectory: String) {
        self.outDirectory = outDirectory
    }

    /// Merges. Throws `Crawler.SetupError.locked` while a crawl or a shard holds OUT,
    /// `NothingToMerge` when OUT has no shard parts.
    ///
    /// The archive (`objectStore`, else the folder `outDirectory`) is opened for the merge
    /// (`Archive`): OUT's lock taken, the parts loaded; the merge works in the session's folder,
    /// and the session stores the merged manifest before anything is deleted, then the contact
    /// sheet.
    public func run() throws -> Report {
        let archive = try Crawler.archive(outDirectory: outDirectory, objectStore: objectStore, network: network)
        let session = try archive.open(.merge) { _, _ in }
        defer { session.close() }
        session.keepHolding { _ in }
        var report = try run(in: session)
        let (storageProblem, sheetProblem) = session.conclude(sheet: report.storageProblem == nil)
        report.storageProblem = report.storageProblem ?? storageProblem ?? sheetProblem
        if session.publishes {
            report.manifestPath = session.displayPath(CacheLayout.manifestFileName)
            report.problems = report.problems.map { $0.replacing(session.directory, with: session.displayPath("")) }
        }
        return report
    }

    /// The merge in `session`'s folder.
    private func run(in session: any ArchiveSession) throws -> Report {
        let started = Date()
        let outDirectory = session.directory
        let layout = CacheLayout(outDirectory: outDirectory)
        let count = try Self.latestShardCount(layout)
        let spill = Spill(directory: layout.outDirectory)
        var parts: [(shard: Shard, header: ManifestHeader?)] = []
        for index in 0..<count {
            guard let shard = Shard(index: index, count: count) else { continue }
            let partLayout = CacheLayout(outDirectory: outDirectory, shard: shard)
            if FileIO.exists(partLayout.journalPath) { try Crawler.fold(partLayout, spill: spill) }
            parts.append((shard, try ManifestReader.header(path: partLayout.manifestPath)))
        }
        let previous = try ManifestReader.header(path: layout.manifestPath)
        let reference = previous?.run?.merge.flatMap { $0.shards == count ? $0.reference : nil }
        let startTimes = parts.map { $0.header?.run?.startedAt }
        var problems: [String] = []
        for (index, part) in parts.enumerated() {
            guard let time = startTimes[index] else {
                problems.append("shard \(part.shard): missing (no part in \(layout.outDirectory)/\(part.shard.directory))")
                continue
            }
            if let reference, reference.count == count, startTimes != reference, let old = reference[index], time <= old {
                problems.append("shard \(part.shard): its part is from a run started \(Self.time(time)), not after the last complete merge's; run that shard again")
            } else if part.header?.run?.interrupted == true || part.header?.run?.deadlineReached == true {
                problems.append("shard \(part.shard): its last run was stopped before it finished (a signal or --deadline); run that shard again")
            }
        }
        let complete = problems.isEmpty
        let since = startTimes.compactMap { $0 }.min() ?? started

        var report = Report(shards: count, complete: complete, problems: problems, manifestPath: layout.manifestPath,
                            startedAt: started, finishedAt: started)
        var record = RunRecord(startedAt: started, finishedAt: Date())
        record.sources = parts.flatMap { $0.header?.run?.sources ?? [] }
        for summary in record.sources where !report.sourceNames.contains(summary.source) {
            report.sourceNames.append(summary.source)
        }
        record.merge = .init(
            shards: count, complete: complete, parts: startTimes,
            reference: complete ? startTimes : reference, problems: problems.isEmpty ? nil : problems)
        var commit = ManifestCommit(policy: ManifestMerge.Policy(precedence: .latestSeen, runStarted: since.wholeSeconds))
        commit.capBytes = cacheMaxBytes
        commit.sheet = ContactSheet.Index(spill: spill, run: record, linkBase: session.linkBase)
        let done = commit.run(
            in: session, manifestPath: layout.manifestPath, generatedAt: record.finishedAt ?? started,
            streams: {
                try ([layout.manifestPath] + parts.map { CacheLayout(outDirectory: outDirectory, shard: $0.shard).manifestPath })
                    .map { try ManifestItemStream(path: $0, spill: spill) }
            },
            run: record, countsAll: true)
        report.evictedFiles = done.plan?.evicted.count ?? 0
        report.evictedBytes = done.plan?.evictedBytes ?? 0
        report.overCacheMax = done.plan?.overCap ?? false
        report.counts = done.merged.total
        report.bySource = done.merged.bySource
        report.cacheBytes = done.merged.referencedBytes
        report.cacheFiles = done.merged.referenced.count
        report.orphansRemoved = done.orphansRemoved
        report.storageProblem = done.storageProblem
        report.finishedAt = Date()
        return report
    }

    /// One shard part found under `shards/`: `N/K/manifest.json` or `N/K/` + the journal, with
    /// when it was written (seconds, or an S3 `LastModified` text: any order that sorts).
    struct ShardPart<Time: Comparable> {
        var count: Int
        var written: Time

        /// The part at `path` relative to `shards/` (`["4", "2", "manifest.json"]`), nil when the
        /// path is no part: N from 1 to 4096, K below N, then the manifest or a journal.
        init?(_ components: [Substring], written: Time) {
            guard components.count >= 3, let count = Int(components[0]), (1...4096).contains(count),
                  let index = Int(components[1]), index >= 0, index < count,
                  components[2] == CacheLayout.manifestFileName[...] || components[2] == CacheLayout.journalFileName[...]
                      || components[2] == S3Archive.journalFolder[...] else { return nil }
            self.count = count
            self.written = written
        }
    }

    /// N of the shard parts written last: the rule for a folder and for a bucket alike. Throws
    /// `NothingToMerge` naming `shown` when there is no part.
    static func latestShardCount<Time: Comparable>(_ parts: [ShardPart<Time>], shown: String) throws -> Int {
        guard let latest = parts.max(by: { $0.written < $1.written }) else {
            throw NothingToMerge(description: "no shard parts in \(shown) (run feedcrawl --shard K/N first)")
        }
        return latest.count
    }

    /// N of the shard parts written last in a folder (`OUT/shards/N/K/manifest.json`, or a journal).
    static func latestShardCount(_ layout: CacheLayout) throws -> Int {
        let root = layout.absolutePath("shards")
        var parts: [ShardPart<Int>] = []
        if let dir = opendir(root) {
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = DirectoryEntry.name(entry)
                guard let count = Int(name), count >= 1, count <= 4096 else { continue }
                for index in 0..<count {
                    for file in [CacheLayout.manifestFileName, CacheLayout.journalFileName] {
                        var info = stat()
                        guard stat("\(root)/\(count)/\(index)/\(file)", &info) == 0,
                              let part = ShardPart(["\(count)", "\(index)", file[...]], written: info.st_mtim.tv_sec) else { continue }
                        parts.append(part)
                    }
                }
            }
        }
        return try latestShardCount(parts, shown: root)
    }

    private static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
