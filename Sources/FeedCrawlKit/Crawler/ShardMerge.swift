import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// `feedcrawl manifest merge`: joins the latest part of every shard of the last `--shard K/N`
/// crawl into OUT's archive (naming the shards' journal files and segments; `OUT/manifest.json`
/// and `OUT/index.html` written anew), then applies `--cache-max` as a whole run would.
/// Idempotent. It removes no orphans (`orphansRemoved` stays 0 while shards' archives name
/// files): a shard's files stay its own until the next shard run replaces its root.
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
        /// What OUT held besides images when the merge measured it (`CrawlReport.footprint`).
        public var footprint: ArchiveFootprint?
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
    /// Where OUT is served over HTTP (`--public-url`): the contact sheet links its images and
    /// manifest there; default nil (relative links).
    public var publicURL: String? = nil

    public init(outDirectory: String) {
        self.outDirectory = outDirectory
    }

    /// Merges. Throws `Crawler.SetupError.locked` while a crawl or a shard holds OUT,
    /// `NothingToMerge` when OUT has no shard parts.
    ///
    /// OUT's archive (`objectStore`, else the folder `outDirectory`) is opened with its lock
    /// held; each shard's archive of the latest shard count is read (with what a killed shard's
    /// journal holds) and its groups absorbed (`Repository.absorb`: its segments named, its
    /// items indexed); then the archive is committed as a run's is, and the contact sheet
    /// written.
    public func run() async throws -> Report {
        let started = Date()
        let (backend, _) = try Crawler.openBackend(
            { var c = CrawlConfiguration(outDirectory: outDirectory); c.objectStore = objectStore; c.userAgent = network.userAgent
              c.caInfo = network.caInfo; c.proxy = network.proxy; c.noProxy = network.noProxy; return c }(),
            policy: RequestPolicy())
        let locks = try await Crawler.lock(backend, shard: nil)
        do {
            let report = try await run(on: backend, started: started)
            for lock in locks { await lock.release() }
            return report
        } catch {
            for lock in locks { await lock.release() }
            throw error
        }
    }

    private func run(on backend: any Backend, started: Date) async throws -> Report {
        let count = try await Self.latestShardCount(backend)
        let main = try await Crawler.openRepository(backend, state: "") { _ in }
        var parts: [(shard: Shard, run: RunRecord?, repository: Repository?)] = []
        for index in 0..<count {
            guard let shard = Shard(index: index, count: count) else { continue }
            let part = try? await Repository.open(backend, state: shard.directory + "/")
            let present = part.map { $0.root.generation > 0 || !$0.table.entries.isEmpty } ?? false
            parts.append((shard, part?.root.run, present ? part : nil))
        }
        let reference = main.root.run?.merge.flatMap { $0.shards == count ? $0.reference : nil }
        let startTimes = parts.map { $0.run?.startedAt }
        var problems: [String] = []
        for (index, part) in parts.enumerated() {
            guard let time = startTimes[index] else {
                problems.append("shard \(part.shard): missing (no part in \(backend.location(FileHandle(.state, part.shard.directory + "/" + CacheLayout.manifestFileName)!)))")
                continue
            }
            if let reference, reference.count == count, startTimes != reference, let old = reference[index], time <= old {
                problems.append("shard \(part.shard): its part is from a run started \(Self.time(time)), not after the last complete merge's; run that shard again")
            } else if part.run?.interrupted == true || part.run?.deadlineReached == true {
                problems.append("shard \(part.shard): its last run was stopped before it finished (a signal or --deadline); run that shard again")
            }
        }
        let complete = problems.isEmpty
        for part in parts {
            if let repository = part.repository { try await main.absorb(repository) }
        }
        var record = RunRecord(startedAt: started, finishedAt: Date())
        record.sources = parts.flatMap { $0.run?.sources ?? [] }
        record.merge = .init(
            shards: count, complete: complete, parts: startTimes,
            reference: complete ? startTimes : reference, problems: problems.isEmpty ? nil : problems)
        var report = Report(
            shards: count, complete: complete, problems: problems,
            manifestPath: backend.location(Repository.rootHandle(state: "")), startedAt: started, finishedAt: started)
        for summary in record.sources where !report.sourceNames.contains(summary.source) {
            report.sourceNames.append(summary.source)
        }
        do {
            // `--cache-max` as a whole run applies it, counting the rest of OUT: what the shards'
            // runs listed stays.
            let since = Int64((record.listedSince.timeIntervalSince1970 * 1000).rounded(.down))
            let footprint = try? await ArchiveFootprint.measure(backend)
            let committed = try await main.commit(
                journal: nil, run: record, generatedAt: record.finishedAt ?? started,
                capBytes: max(cacheMaxBytes - (footprint?.total ?? 0), 0), protectedSince: since)
            report.footprint = footprint
            report.evictedFiles = committed.evictedFiles
            report.evictedBytes = committed.evictedBytes
            report.overCacheMax = committed.overCap
            for totals in committed.root.totals.sources.values {
                for (status, n) in totals.items { if let s = ItemStatus(rawValue: status) { report.counts.items[s, default: 0] += n } }
                for (status, n) in totals.images { if let s = ItemStatus(rawValue: status) { report.counts.images[s, default: 0] += n } }
            }
            report.bySource = committed.root.totals.sources.mapValues(Crawler.statusCounts)
            report.cacheBytes = committed.root.totals.bytes
            report.cacheFiles = committed.root.totals.files
            // The contact sheet of the merged archive; its problem is the merge's.
            report.storageProblem = await ContactSheet.writeReporting(
                repository: main, run: committed.root.run, backend: backend, linkBase: publicURL ?? "")
        } catch {
            report.storageProblem = "cannot store the archive: \(error)"
        }
        report.finishedAt = Date()
        return report
    }

    /// N of the shard parts written last (their roots, or a first run's journal files): the rule
    /// for a folder and for a bucket alike. Throws `NothingToMerge` when there is no part.
    static func latestShardCount(_ backend: any Backend) async throws -> Int {
        var parts: [(count: Int, written: Double)] = []
        func note(_ components: [Substring], _ written: Double?) {
            guard components.count >= 3, let count = Int(components[0]), (1...4096).contains(count),
                  let index = Int(components[1]), index >= 0, index < count else { return }
            parts.append((count, written ?? 0))
        }
        var roots: [FileInfo] = []
        try await backend.list(.state, prefix: "shards/") { page in roots += page }
        for info in roots where !info.handle.isPartial && info.handle.name.hasSuffix("/" + CacheLayout.manifestFileName) {
            var written = info.modified
            if written == nil { written = try await backend.stat(info.handle)?.modified }
            note(Array(info.handle.name.split(separator: "/").dropFirst()), written)
        }
        try await backend.list(.archive, prefix: "journal/shards/") { page in
            for info in page where !info.handle.isPartial {
                note(Array(info.handle.name.split(separator: "/").dropFirst(2)), info.modified)
            }
        }
        guard let latest = parts.max(by: { $0.written < $1.written }) else {
            throw NothingToMerge(
                description: "no shard parts in \(backend.location(FileHandle(.state, "shards/x")!).dropLast(2)) (run feedcrawl --shard K/N first)")
        }
        return latest.count
    }

    private static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
