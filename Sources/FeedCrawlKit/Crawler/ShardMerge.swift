import FoundationEssentials
import Glibc

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
    public func run() throws -> Report {
        if let objectStore { return try run(on: objectStore) }
        return try run(output: nil)
    }

    /// The merge, of the local OUT (`output` nil) or of a staging folder for object storage.
    func run(output: Crawler.Output?) throws -> Report {
        let started = Date()
        let layout = CacheLayout(outDirectory: outDirectory)
        let lock = try Crawler.lock(layout)
        defer { withExtendedLifetime(lock) {} }
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
        let store: any CacheStore = output?.store ?? LocalCacheStore(layout: layout)
        let present: CacheFiles, temporary: [String]
        do {
            (present, temporary) = try CacheFiles.scan(store)
        } catch {
            report.storageProblem = "cannot list the cache: \(error)"
            report.finishedAt = Date()
            return report
        }
        var policy = ManifestMerge.Policy(precedence: .latestSeen, present: present, runStarted: since.wholeSeconds)
        func streams() throws -> [any ItemStream] {
            try ([layout.manifestPath] + parts.map { CacheLayout(outDirectory: outDirectory, shard: $0.shard).manifestPath })
                .map { try ManifestItemStream(path: $0, spill: spill) }
        }
        let sheet: ContactSheet.Index
        do {
            var inputs = try streams()
            let dry = try ManifestMerge(policy: policy).run(&inputs, planning: true) { _ in }
            let plan = EvictionPlan(
                candidates: dry.candidates, protected: dry.protected, protectedBytes: dry.protectedBytes,
                capBytes: cacheMaxBytes)
            policy.evicted = plan.evictedFiles
            report.evictedFiles = plan.evicted.count
            report.evictedBytes = plan.evictedBytes
            report.overCacheMax = plan.overCap
            var record = RunRecord(startedAt: started, finishedAt: Date())
            record.evicted = plan.evicted.count
            record.evictedBytes = plan.evictedBytes
            record.sources = parts.flatMap { $0.header?.run?.sources ?? [] }
            for summary in record.sources where !report.sourceNames.contains(summary.source) {
                report.sourceNames.append(summary.source)
            }
            record.merge = .init(
                shards: count, complete: complete, parts: startTimes,
                reference: complete ? startTimes : reference, problems: problems.isEmpty ? nil : problems)
            // Evicted files go in the sweep too, but they are counted as evicted, not as orphans.
            let evictedPresent = present.count - present.count(notIn: plan.evictedFiles)
            var referenced = CacheFiles()
            sheet = ContactSheet.Index(spill: spill, run: record, linkBase: output?.linkBase ?? "")
            inputs = try streams()
            try AtomicFile.streamThrowing(to: layout.manifestPath) { out in
                var writer = ManifestWriter(generatedAt: record.finishedAt ?? started)
                let merged = try ManifestMerge(policy: policy).run(&inputs) { item in
                    try writer.append(item, to: &out)
                    sheet.add(item.item)
                }
                record.counts = Dictionary(uniqueKeysWithValues: merged.total.items.map { ($0.key.rawValue, $0.value) })
                record.images = Dictionary(uniqueKeysWithValues: merged.total.images.map { ($0.key.rawValue, $0.value) })
                record.orphansRemoved = temporary.count + present.count(notIn: merged.referenced) - evictedPresent
                try writer.finish(run: record, to: &out)
                report.counts = merged.total
                report.bySource = merged.bySource
                report.cacheBytes = merged.referencedBytes
                report.cacheFiles = merged.referenced.count
                referenced = merged.referenced
            }
            try output?.publish()
            // A listing that fails leaves the files for the next sweep.
            let removed = (try? referenced.removeOthers(in: store, temporary: true)) ?? 0
            report.orphansRemoved = max(0, removed - evictedPresent)
        } catch {
            report.storageProblem = "cannot write the manifest: \(error)"
            report.finishedAt = Date()
            return report
        }
        try? ContactSheet.write(index: sheet, manifestPath: layout.manifestPath, outDirectory: layout.outDirectory)
        report.finishedAt = Date()
        return report
    }

    /// N of the shard parts written last (`OUT/shards/N/K/manifest.json`, or a journal).
    static func latestShardCount(_ layout: CacheLayout) throws -> Int {
        let root = layout.absolutePath("shards")
        guard let dir = opendir(root) else {
            throw NothingToMerge(description: "no shard parts in \(root) (run feedcrawl --shard K/N first)")
        }
        defer { closedir(dir) }
        var best: (count: Int, time: Int) = (0, -1)
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            guard let count = Int(name), count >= 1, count <= 4096 else { continue }
            for index in 0..<count {
                guard let shard = Shard(index: index, count: count) else { continue }
                let part = CacheLayout(outDirectory: layout.outDirectory, shard: shard)
                for path in [part.manifestPath, part.journalPath] {
                    var info = stat()
                    guard stat(path, &info) == 0 else { continue }
                    if info.st_mtim.tv_sec > best.time { best = (count, info.st_mtim.tv_sec) }
                }
            }
        }
        guard best.count > 0 else {
            throw NothingToMerge(description: "no shard parts in \(root) (run feedcrawl --shard K/N first)")
        }
        return best.count
    }

    private static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}

extension ShardMerge {
    /// The merge of an OUT in object storage, in a local staging folder: under the OUT's run
    /// lease (`PREFIX/.lock`), the shard parts of the latest shard count N (the N whose parts or
    /// journal objects were written last) and their journal objects, and the merged manifest,
    /// are pulled; the merge runs as on disk over `S3CacheStore`; the manifest is stored before
    /// any object is deleted; then the contact sheet is stored.
    func run(on target: ObjectStoreTarget) throws -> Report {
        let archive = try S3Archive(target: target, network: network)
        let leaseName = CacheLayout.lockFileName
        let lease = try archive.takeLease(leaseName)
        defer { archive.release(lease) }
        let staging = target.stagingDirectory(shard: nil, purpose: "merge")
        defer { try? Crawler.removeTree(staging) }
        let layout = CacheLayout(outDirectory: staging)
        do {
            try Crawler.clearStaging(staging)
            let listed = try archive.list("shards")
            // shards/N/K/manifest.json or shards/N/K/journal/…: the N written last.
            var latest: (count: Int, time: String) = (0, "")
            for object in listed {
                let parts = object.key.split(separator: "/")
                guard parts.count >= 4, let count = Int(parts[1]), count >= 1, count <= 4096,
                      let index = Int(parts[2]), index >= 0, index < count,
                      parts[3] == CacheLayout.manifestFileName[...] || parts[3] == S3Archive.journalFolder[...] else { continue }
                if object.lastModified > latest.time { latest = (count, object.lastModified) }
            }
            guard latest.count > 0 else {
                throw NothingToMerge(description: "no shard parts in \(archive.displayPath("shards")) (run feedcrawl --shard K/N first)")
            }
            try archive.pull(CacheLayout.manifestFileName, to: layout.manifestPath)
            for index in 0..<latest.count {
                guard let shard = Shard(index: index, count: latest.count) else { continue }
                let part = CacheLayout(outDirectory: staging, shard: shard)
                try AtomicFile.createDirectories(part.stateDirectory)
                try archive.pull(S3Archive.statePath(shard.directory, CacheLayout.manifestFileName), to: part.manifestPath)
                // A killed shard's outcomes: folded into the copy of its part (the objects stay
                // until that shard's next run stores its part).
                _ = try archive.pullJournal(state: shard.directory, to: part.journalPath)
                var info = stat()
                if stat(part.journalPath, &info) == 0, info.st_size == 0 { unlink(part.journalPath) }
            }
        } catch let error as NothingToMerge {
            throw error
        } catch {
            throw Crawler.SetupError.output("cannot read the archive at \(target.location): \(error)")
        }
        let local = ShardMerge(outDirectory: staging, cacheMaxBytes: cacheMaxBytes)
        let output = Crawler.Output(
            store: archive.cacheStore(spool: staging + "/" + Crawler.spoolFolder),
            journalOpened: {},
            publish: {
                guard lease.isHeld else {
                    throw Crawler.SetupError.output(
                        "lost the run lease \(archive.displayPath(leaseName)): \(lease.lost ?? .takenOver); nothing was stored")
                }
                try archive.push(layout.manifestPath, as: CacheLayout.manifestFileName, contentType: "application/json")
            },
            linkBase: target.publicURL ?? "")
        lease.keepRenewing { _ in }
        var report = try local.run(output: output)
        if report.storageProblem == nil, FileIO.exists(layout.absolutePath(ContactSheet.fileName)) {
            try? archive.push(layout.absolutePath(ContactSheet.fileName), as: ContactSheet.fileName,
                              contentType: "text/html; charset=utf-8")
        }
        report.manifestPath = archive.displayPath(CacheLayout.manifestFileName)
        report.problems = report.problems.map { $0.replacing(staging, with: target.location.description) }
        return report
    }

    private init(outDirectory: String, cacheMaxBytes: Int64) {
        self.outDirectory = outDirectory
        self.cacheMaxBytes = cacheMaxBytes
    }
}
