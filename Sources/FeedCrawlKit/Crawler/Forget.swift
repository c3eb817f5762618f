import FoundationEssentials
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// `feedcrawl forget`: takes items out of OUT's archive (restic's `forget`) and then the images
/// nothing else names (its `prune`), with the run lock held as a crawl holds it.
///
/// The order keeps every moment safe to be killed at: the keys of the files to remove are saved
/// as an intent (`RunIntents`), then the copies of the groups some of whose items stay (a journal
/// file), then the root; only then are the files removed, and the contact sheet written. Killed
/// before the root, the archive is the one before (a copy's journal file, adopted by the next
/// run, lists again what it already holds); killed after it, the next plain run (or forget)
/// finds the intent and removes what no record names. A file a kept item names is never removed.
public struct Forget: Sendable {
    /// What to forget: items meeting every rule given (at least one must be).
    public struct Rule: Sendable {
        /// Items no run listed within this many seconds before the archive's most recent run
        /// started (0: everything that run did not list); nil: no such rule.
        public var notListedFor: Double?
        /// Items of these sources (as the archive names them); empty: any.
        public var sources: Set<String> = []
        /// Items with these statuses; empty: any.
        public var statuses: Set<ItemStatus> = []
        /// Items with these ids; empty: any.
        public var ids: Set<String> = []

        public init() {}

        /// Whether no rule is given (a forget of everything is refused).
        public var isEmpty: Bool { notListedFor == nil && sources.isEmpty && statuses.isEmpty && ids.isEmpty }

        /// The rule as the options that give it: `--not-listed-for 30d --source a,b`.
        public var described: String {
            var parts: [String] = []
            if let notListedFor { parts.append("--not-listed-for " + DurationParser.format(notListedFor)) }
            if !sources.isEmpty { parts.append("--source " + sources.sorted().joined(separator: ",")) }
            if !statuses.isEmpty { parts.append("--status " + statuses.map(\.rawValue).sorted().joined(separator: ",")) }
            if !ids.isEmpty {
                parts.append(ids.count <= 5 ? "--id " + ids.sorted().joined(separator: ",") : "--id (\(ids.count) ids)")
            }
            return parts.joined(separator: " ")
        }
    }

    /// What the forget did (or, dry, would do).
    public struct Report: Sendable {
        /// Items forgotten, by source.
        public var items: [String: Int] = [:]
        /// A few of them, `source/id`.
        public var sample: [String] = []
        /// Files (images) removed, and their bytes.
        public var files = 0
        public var bytes: Int64 = 0
        /// Items the archive held before.
        public var archiveItems = 0
        /// Whether nothing was changed because it was a dry run.
        public var dryRun = false
        /// Set when `limit` refused the forget (nothing changed): what it would have taken.
        public var refused: String?
        /// Files a forget or run killed earlier left, removed now.
        public var leftoversRemoved = 0
        /// The sources the archive holds (to name them when `--source` names another).
        public var sources: [String] = []
        /// Set when the archive or its contact sheet could not be stored.
        public var storageProblem: String?
        public var manifestPath = ""
        /// The archive after the forget (before it, when nothing changed): items per source and
        /// status, and the distinct image files it names and their bytes.
        public var bySource: [String: StatusCounts] = [:]
        public var cacheFiles = 0
        public var cacheBytes: Int64 = 0
        /// What OUT holds besides images after the forget (nil for a dry run, or when it could
        /// not be measured).
        public var footprint: ArchiveFootprint?
        /// When the forget started and ended (the metrics' run times).
        public var startedAt = Date()
        public var finishedAt = Date()

        /// Items forgotten in all.
        public var itemCount: Int { items.values.reduce(0, +) }

        /// The archive's totals from `root`.
        mutating func take(_ root: RepositoryRoot) {
            bySource = root.totals.sources.mapValues(Crawler.statusCounts)
            cacheFiles = root.totals.files
            cacheBytes = root.totals.bytes
        }
    }

    /// Why there is nothing to forget from.
    public struct NoArchive: Error, CustomStringConvertible {
        public var description: String
    }

    public let outDirectory: String
    public var rule: Rule
    /// Look, say what would go, change nothing; default false.
    public var dryRun = false
    /// Refuse (and change nothing) when more items than this, or more than this percentage of the
    /// archive's, would go (rclone's `--max-delete`); default nil: no limit.
    public var limit: ItemLimit?
    /// OUT in object storage (`--out s3://…`) instead of `outDirectory`; default nil.
    public var objectStore: ObjectStoreTarget? = nil
    /// The CA bundle, proxy settings and User-Agent of requests to object storage.
    public var network = HTTPEngine.Configuration()
    /// Where OUT is served over HTTP (`--public-url`), for the contact sheet; default nil.
    public var publicURL: String? = nil

    public init(outDirectory: String, rule: Rule) {
        self.outDirectory = outDirectory
        self.rule = rule
    }

    /// Forgets. Throws `Crawler.SetupError.locked`/`.leaseHeld` while a crawl or shard holds OUT
    /// (a dry run takes no lock, like `feedcrawl manifest`), `.damagedManifest` for a root that
    /// cannot be read, `NoArchive` when OUT holds none.
    public func run() async throws -> Report {
        var configuration = CrawlConfiguration(outDirectory: outDirectory)
        configuration.objectStore = objectStore
        configuration.userAgent = network.userAgent
        configuration.caInfo = network.caInfo
        configuration.proxy = network.proxy
        configuration.noProxy = network.noProxy
        let (archive, _) = try Crawler.openBackend(configuration, policy: RequestPolicy())
        let started = Date()
        if dryRun { return try await run(on: archive) }
        let locks = try await Crawler.lock(archive, shard: nil)
        do {
            var report = try await run(on: archive)
            report.startedAt = started
            report.footprint = try? await ArchiveFootprint.measure(archive)
            report.finishedAt = Date()
            for lock in locks { await lock.release() }
            return report
        } catch {
            for lock in locks { await lock.release() }
            throw error
        }
    }

    private func run(on archive: PhasedBackend) async throws -> Report {
        let rootHandle = Repository.rootHandle(state: "")
        let repository = dryRun
            ? try await Self.open(archive)
            : try await Crawler.openRepository(archive, state: "") { _ in }
        guard repository.root.generation > 0 || !repository.table.entries.isEmpty else {
            throw NoArchive(description: "no archive at \(archive.location(rootHandle)) (has feedcrawl run with this --out?)")
        }
        var report = Report(manifestPath: archive.location(rootHandle))
        report.take(repository.root)
        report.dryRun = dryRun
        report.sources = repository.root.totals.sources.keys.sorted()
        report.archiveItems = repository.root.totals.itemCount
        var plan = Repository.ForgetRule()
        plan.sources = rule.sources
        plan.statuses = rule.statuses
        plan.ids = rule.ids
        if let seconds = rule.notListedFor {
            // Before the most recent run's start (a merge: its earliest part's), in milliseconds
            // as groups record it (`lastSeen` shows whole seconds: two runs within one second
            // would read alike there).
            let run = repository.root.run
            let reference = run.map { $0.merge.flatMap { $0.parts.compactMap { $0 }.min() } ?? $0.startedAt } ?? Date()
            plan.listedBefore = Int64((reference.timeIntervalSince1970 * 1000).rounded()) - Int64((seconds * 1000).rounded())
        }
        var forget = try await repository.planForget(plan)
        forget.rule = rule.described
        report.items = forget.items
        report.sample = forget.sample
        report.files = forget.files.count
        report.bytes = forget.bytes
        if let limit, let refused = Self.refusal(forget.itemCount, of: report.archiveItems, limit: limit) {
            report.refused = refused
            return report
        }
        guard !dryRun else { return report }
        // Files a killed run or forget declared: swept once this forget is committed.
        let left = (try? await RunIntents.left(on: archive)) ?? []
        guard forget.itemCount > 0 else {
            // Nothing to forget: no root, no sheet is written; only what a killed run or forget
            // left goes (its intents' files no record names, its staged bodies, its marker).
            let marked = (try? await archive.stat(Crawler.unfinishedHandle(state: ""))) != nil
            if !left.isEmpty || marked {
                let unfinished = try await Crawler.markUnfinished(archive, state: "")
                report.leftoversRemoved = await Crawler.sweep(archive, repository: repository, intents: left, partials: unfinished)
                await Crawler.markFinished(archive, state: "")
            }
            return report
        }
        let unfinished = try await Crawler.markUnfinished(archive, state: "")
        let intents: RunIntents
        do {
            let applied = try await Self.apply(forget, to: repository, on: archive, at: Date())
            intents = applied.intents
            report.take(applied.committed.root)
        } catch {
            report.storageProblem = "cannot store the archive: \(error)"
            return report
        }
        report.leftoversRemoved = await Crawler.sweep(archive, repository: repository, intents: left, partials: unfinished)
        await intents.removeAll()
        report.storageProblem = await ContactSheet.writeReporting(
            repository: repository, run: repository.root.run, backend: archive, linkBase: publicURL ?? "")
        if report.storageProblem == nil { await Crawler.markFinished(archive, state: "") }
        return report
    }

    /// Carries out `plan` on OUT's archive (its lock held): the keys of the files to remove saved
    /// as an intent, the copies journaled, the root committed, the files removed. Returns the
    /// intent, for the caller to remove once done (a crawl's end, or `run`).
    static func apply(
        _ plan: Repository.ForgetPlan, to repository: Repository, on archive: any Backend, at time: Date
    ) async throws -> (intents: RunIntents, committed: Repository.Committed) {
        let journal = RunJournal(
            backend: archive, state: "", started: Int64((time.timeIntervalSince1970 * 1000).rounded()),
            firstNumber: repository.root.nextGroup)
        let intents = RunIntents(backend: archive, state: "", run: journal.run)
        try await intents.declare(plan.files.map(\.key))
        try await repository.writeCopies(plan, into: journal)
        let committed = try await repository.commit(journal: journal, run: nil, generatedAt: time, forgetting: plan)
        return (intents, committed)
    }

    /// The archive for a dry run: opened as `feedcrawl manifest` opens it, writing nothing.
    private static func open(_ archive: any Backend) async throws -> Repository {
        do {
            let repository = try await Repository.open(archive, state: "")
            try await repository.shadowAdopted()
            return repository
        } catch let damage as DamagedRoot {
            throw Crawler.SetupError.damagedManifest(DamagedManifest(
                path: archive.location(Repository.rootHandle(state: "")), reason: damage.reason))
        }
    }

    /// Why `count` items of `total` are more than `limit` allows, or nil when they are not.
    static func refusal(_ count: Int, of total: Int, limit: ItemLimit) -> String? {
        guard limit.isExceeded(by: count, of: total) else { return nil }
        switch limit {
        case .items:
            return "\(count) items would be forgotten, more than --max-delete \(limit.described)"
        case .percent:
            return "\(count) items would be forgotten (\(ItemLimit.percent(ItemLimit.share(count, of: total))) of \(total)), "
                + "more than --max-delete \(limit.described)"
        }
    }
}
