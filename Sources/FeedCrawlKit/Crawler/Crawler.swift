import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP

/// Crawls the configured feeds into `OUT/cache/` and writes `OUT/manifest.json`.
///
/// One run at a time per output folder (an advisory lock on `OUT/.lock`). A journal a killed run
/// left is folded into the manifest first. Then the sources page through their feeds, each
/// page's items going to the `ImagePipeline`, which fetches their images into the cache and
/// journals every finished item. At the end the journal and the previous manifest are merged
/// into the new manifest (streamed, atomically), also when the run is cancelled; then files no
/// item references (and `.part` files) are removed, and the contact sheet is written.
public final class Crawler: Sendable {
    public let configuration: CrawlConfiguration
    let events: @Sendable (CrawlEvent) -> Void
    /// Whether images may come from loopback and private addresses (`AddressPolicy`).
    let privateAddresses: PrivateAddressScope
    /// How every request of the run is made, feed, image and storage alike: `--retries`,
    /// `--max-retry-wait`, `--connect-timeout`, `--max-time`, and `--deadline` counted from
    /// when the crawler was made (the start of the run).
    let policy: RequestPolicy

    /// Errors that stop a crawl before it starts.
    public enum SetupError: Error, CustomStringConvertible {
        case locked(String)
        /// Another run holds the run lease of an OUT in object storage: what it says.
        case leaseHeld(String)
        case output(String)
        /// The manifest (or, for a shard, the merged one) cannot be parsed; nothing was changed.
        case damagedManifest(DamagedManifest)

        public var description: String {
            switch self {
            case .locked(let path): return "another feedcrawl run holds \(path)"
            case .leaseHeld(let message): return message
            case .output(let message): return message
            case .damagedManifest(let damage): return damage.description
            }
        }
    }

    public convenience init(configuration: CrawlConfiguration, events: @escaping @Sendable (CrawlEvent) -> Void = { _ in }) {
        self.init(configuration: configuration, policy: Self.requestPolicy(configuration), events: events)
    }

    /// A crawler whose requests follow `policy` (a run on object storage hands its own on).
    init(configuration: CrawlConfiguration, policy: RequestPolicy, events: @escaping @Sendable (CrawlEvent) -> Void) {
        self.configuration = configuration
        self.events = events
        self.policy = policy
        let scope = PrivateAddressScope(allowed: configuration.allowPrivateAddresses)
        for source in configuration.sources { scope.noteFeed(host: URLCheck.host(of: source.url)) }
        // Through a proxy the address checked is the proxy's: one on this machine's network
        // must not turn every image away (the proxy decides where requests go).
        if let proxy = configuration.proxy ?? Self.environmentProxy() {
            scope.noteFeed(host: URLCheck.host(of: proxy.contains("://") ? proxy : "http://" + proxy))
        }
        privateAddresses = scope
    }

    /// Runs the crawl. Task cancellation (a signal) or `deadlineSeconds` stops it early: nothing
    /// more is scheduled, transfers in flight are cancelled (leaving no partial file), their
    /// images are `cancelled`, and the manifest is still written.
    ///
    /// The archive (`configuration.objectStore`, else the folder `outDirectory`) is opened for
    /// the crawl (`Archive`): its lock taken, its state loaded; the run works in the session's
    /// folder, and the session stores what it saves there (the manifest before anything is
    /// deleted, then the contact sheet). A lock lost while the run goes on stops it.
    public func run() async throws -> CrawlReport {
        let events = self.events
        let archive = try Self.archive(
            outDirectory: configuration.outDirectory, objectStore: configuration.objectStore.map { target in
                var target = target
                target.configuration.policy = policy
                return target
            },
            network: HTTPEngine.Configuration(
                userAgent: configuration.userAgent, caInfo: configuration.caInfo, proxy: configuration.proxy,
                noProxy: configuration.noProxy))
        let session = try archive.open(.crawl(configuration.shard)) { message, detail in
            events(.storage(message: message, detail: detail))
        }
        defer { session.close() }
        let crawl = Task { try await self.run(in: session) }
        session.keepHolding { message in
            events(.warning(source: "", message: message))
            crawl.cancel()
        }
        var report = try await withTaskCancellationHandler {
            try await crawl.value
        } onCancel: {
            crawl.cancel()
        }
        let (storageProblem, sheetProblem) = session.conclude(sheet: configuration.shard == nil)
        if let problem = storageProblem {
            report.storageProblem = report.storageProblem.map { $0 + "; " + problem } ?? problem
        }
        if let problem = sheetProblem { report.contactSheetProblem = problem }
        if session.publishes {
            let state = configuration.shard.map { $0.directory + "/" } ?? ""
            report.manifestPath = session.displayPath(state + CacheLayout.manifestFileName)
        }
        report.uploads = session.uploads
        return report
    }

    /// The run in `session`'s folder.
    private func run(in session: any ArchiveSession) async throws -> CrawlReport {
        let started = Date().wholeMilliseconds  // as the run record writes it: see `RunRecord.listedSince`
        let layout = CacheLayout(outDirectory: session.directory, shard: configuration.shard)
        let sharded = configuration.shard != nil

        CrawlStorage.removeLeftoverReserve(layout)
        var leftovers = layout.removeTemporaryManifests()
        let spill = Spill(directory: layout.outDirectory)
        // Every run keeps OUT/manifest.journal until its manifest is saved, so a journal here
        // means the last run was killed and may have left partial downloads behind.
        let interrupted = FileIO.exists(layout.journalPath)
        if interrupted { try Self.fold(layout, spill: spill) }
        let store = session.store
        do {
            try store.prepare()
            // A shard leaves `.part` files alone: another shard may be writing them. A store
            // that spools has no partial names (its spool starts empty).
            if interrupted && !sharded && !session.publishes { leftovers += try store.removePartials() }
        } catch {
            throw SetupError.output("cannot create the cache in \(layout.cacheDirectory): \(error)")
        }
        let storage = try Self.makeStorage(layout, configuration: configuration, events: events)
        var archive: ArchiveIndex?
        let journal: Journal
        do {
            // A shard also reuses what the merged manifest holds (other shards' and plain runs').
            archive = try ArchiveIndex(paths: sharded ? [layout.manifestPath, layout.mergedManifestPath] : [layout.manifestPath])
            journal = try Journal(path: layout.journalPath)
        } catch {
            if let damage = DamagedManifest.from(error, manifestPaths: [layout.manifestPath, layout.mergedManifestPath]) {
                throw SetupError.damagedManifest(damage)
            }
            throw SetupError.output("\(error)")
        }
        session.journalOpened(path: layout.journalPath) { [events = self.events] in events(.warning(source: "", message: $0)) }
        // The previous manifest, for the end of the run: bytes of its distinct files, how many
        // images have files, whether it was in order.
        let previous = (
            bytes: archive?.totalBytes ?? 0, files: archive?.count ?? 0, inOrder: archive?.inOrder[layout.manifestPath])
        let recorder = RunItems(journal: journal, spill: spill, runStarted: started, events: events)
        let engine = try HTTPEngine(configuration: .init(
            maxConcurrentTransfers: configuration.concurrency, userAgent: configuration.userAgent,
            caInfo: configuration.caInfo, proxy: configuration.proxy, noProxy: configuration.noProxy))
        defer { engine.shutdown() }
        let redactor = SecretRedactor(secrets: configuration.sources.flatMap(\.secrets))
        let events = redactingEvents(redactor)
        let pipeline = ImagePipeline(
            engine: engine, store: store,
            settings: pipelineSettings(keepsReplacedFiles: session.publishes), archive: archive ?? ArchiveIndex(), recorder: recorder, storage: storage,
            events: events)
        archive = nil

        let deadlineReached = Locked(false)
        let crawl: @Sendable () async -> [SourceReport] = {
            let reports = await self.crawlSources(
                pipeline: pipeline, engine: engine, layout: layout, redactor: redactor, events: events)
            await pipeline.drain()
            return reports
        }
        let expire: @Sendable () -> Void = {
            deadlineReached.withLock { $0 = true }
            pipeline.cancelAll(reason: "cancelled: deadline reached")
        }
        let reports: [SourceReport] = await withTaskCancellationHandler {
            await Self.withDeadline(
                policy.retry.deadline.map { RetryPolicy.seconds($0 - .now) }, onExpiry: expire, crawl) ?? []
        } onCancel: {
            pipeline.cancelAll()
        }
        let cancelled = Task.isCancelled
        let deadline = deadlineReached.withLock { $0 }
        pipeline.finish(spill: spill.flatMap { Spill(directory: $0.directory) })

        let finished = Date()
        var run = RunRecord(
            startedAt: started, finishedAt: finished, options: RunRecord.redacted(optionsRecord(redactor)),
            bytes: pipeline.downloadedBytes, sources: reports.map(\.summary))
        if deadline { run.deadlineReached = true }
        if cancelled { run.interrupted = true }
        run.orphansRemoved = leftovers
        run.shard = configuration.shard?.description
        storage.releaseForFinalWrite()
        // The final phase (`ManifestCommit`): this run's items (from the journal) and the
        // previous manifest's are merged into the new manifest; `--cache-max` is planned only
        // when the archive and this run's downloads together could exceed it, and never in a
        // shard (the merge evicts: another shard may use the files); the journal is removed once
        // the manifest is stored; a shard sweeps nothing and writes no contact sheet.
        var merge = ManifestMerge.Policy(
            precedence: .firstInput, reconcile: { pipeline.finishedOutcome(forFile: $0) },
            runStarted: run.startedAt.wholeSeconds)
        merge.dropsPlaceholders = true
        var commit = ManifestCommit(policy: merge, capacity: previous.files + 2 * recorder.count + 1024)
        commit.capBytes = !sharded && previous.bytes + pipeline.downloadedBytes > configuration.cacheMaxBytes
            ? configuration.cacheMaxBytes : nil
        commit.sheet = sharded ? nil : ContactSheet.Index(spill: spill, run: run, linkBase: session.linkBase)
        commit.sweeps = !sharded
        commit.checkpoint = configuration.checkpoint
        let done = commit.run(
            in: session, manifestPath: layout.manifestPath, generatedAt: run.finishedAt ?? run.startedAt,
            streams: {
                [
                    RunItemStream(entries: recorder.sorted(), journal: recorder.journal, verbatim: true),
                    try ManifestItemStream(path: layout.manifestPath, spill: spill, sorted: previous.inOrder),
                ]
            },
            run: run, stored: { try? recorder.journal.remove() })
        // The device filling up, then a failed final write, joined when both happened.
        let problems = [storage.problem, done.storageProblem].compactMap { $0 }
        var report = CrawlReport(
            startedAt: started, finishedAt: finished, counts: done.merged.run.items, bytesDownloaded: pipeline.downloadedBytes,
            sources: reports, storageProblem: problems.isEmpty ? recorder.journalProblem : problems.joined(separator: "; "),
            cancelled: cancelled, manifestPath: layout.manifestPath)
        report.imageCounts = done.merged.run.images
        report.runBySource = done.merged.runBySource
        report.manifestBySource = done.merged.bySource
        report.shard = configuration.shard
        report.deadlineReached = deadline
        report.evictedFiles = done.plan?.evicted.count ?? 0
        report.evictedBytes = done.plan?.evictedBytes ?? 0
        report.orphansRemoved = done.orphansRemoved + leftovers
        report.cacheBytes = done.merged.referencedBytes
        report.cacheFiles = done.merged.referenced.count
        report.sourceNames = configuration.sources.map(\.name)
        report.overCacheMax = done.plan?.overCap ?? false
        report.peakWaiting = pipeline.peakWaiting
        report.contactSheetProblem = done.contactSheetProblem
        return report
    }

    /// Crawls every source concurrently; a source that could not be crawled cancels its images
    /// (other sources go on).
    private func crawlSources(
        pipeline: ImagePipeline, engine: HTTPEngine, layout: CacheLayout, redactor: SecretRedactor,
        events: @escaping @Sendable (CrawlEvent) -> Void
    ) async -> [SourceReport] {
        let sources = configuration.sources
        let stores = FeedStores(configuration: configuration, layout: layout)
        let budgets = RateBudgets()
        let limits = FeedClient.Limits(
            policy: policy, maxBytes: configuration.maxPageBytes, privateAddresses: privateAddresses)
        return await withTaskGroup(of: (Int, SourceReport).self) { group in
            for (index, source) in sources.enumerated() {
                group.addTask {
                    let client = FeedClient(
                        source: source.name, engine: engine, limits: limits, redactor: redactor,
                        setup: stores.setup(for: source), gate: budgets.gate(url: source.url, key: source.key),
                        headers: source.headers, events: events)
                    let report = await Self.crawl(
                        source, group: index, shard: self.configuration.shard, client: client, redactor: redactor,
                        pipeline: pipeline)
                    if report.failure != nil { pipeline.cancel(group: index) }
                    return (index, report)
                }
            }
            var reports: [(Int, SourceReport)] = []
            for await report in group {
                reports.append(report)
                if let failure = report.1.failure { events(.sourceFailed(source: report.1.name, message: failure)) }
            }
            return reports.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Crawls one source.
    static func crawl(
        _ source: SourceConfiguration, group: Int, shard: Shard?, client: FeedClient, redactor: SecretRedactor,
        pipeline: ImagePipeline
    ) async -> SourceReport {
        guard SourceConfiguration.isValidName(source.name) else {
            var report = SourceReport(name: source.name)
            report.failure = "invalid source name (use 1 to 64 of A-Z a-z 0-9 . _ -)"
            return report
        }
        let context = FeedCrawlContext(client: client, redactor: redactor, pipeline: pipeline, group: group, shard: shard)
        return await source.feed.crawl(context)
    }

    /// The pipeline's settings; `keepsReplacedFiles`: an earlier copy of a URL under another name
    /// is left for the sweep after the manifest is stored (object storage, where the manifest
    /// stored still names it until then).
    private func pipelineSettings(keepsReplacedFiles: Bool) -> ImagePipeline.Settings {
        var settings = ImagePipeline.Settings()
        settings.limits = .init(
            concurrency: configuration.concurrency, perHost: configuration.perHost, maxWaiting: configuration.maxWaiting)
        settings.policy = policy
        settings.maxImageBytes = configuration.maxImageBytes
        settings.ttlSeconds = configuration.ttlSeconds
        settings.identity = configuration.cacheIdentity
        settings.removesReplacedFiles = configuration.shard == nil && !keepsReplacedFiles
        settings.privateAddresses = privateAddresses
        return settings
    }

    /// The proxy libcurl takes from the environment, if any (`https_proxy`, `http_proxy`,
    /// `all_proxy`, either case).
    static func environmentProxy() -> String? {
        for name in ["https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY"] {
            if let value = getenv(name), value.pointee != 0 { return String(cString: value) }
        }
        return nil
    }

    /// The one request policy of a run of `configuration`: `--retries`, `--max-retry-wait`,
    /// `--connect-timeout`, `--max-time`, and no wait past `--deadline` (counted from now).
    public static func requestPolicy(_ configuration: CrawlConfiguration) -> RequestPolicy {
        RequestPolicy(
            retry: RetryPolicy(
                retries: configuration.retries, baseDelay: configuration.retryBaseDelay,
                maxRetryWait: configuration.maxRetryWaitSeconds,
                deadline: configuration.deadlineSeconds.map { .now + .milliseconds(Int64(($0 * 1000).rounded())) }),
            connectTimeoutMs: configuration.connectTimeoutMs, lowSpeedTimeSeconds: configuration.lowSpeedTimeSeconds,
            totalTimeoutMs: milliseconds(configuration.maxTransferSeconds))
    }

    /// Seconds as whole milliseconds for curl (at least 1), or nil for 0 (no limit).
    static func milliseconds(_ seconds: Double) -> Int? {
        seconds > 0 ? max(1, Int(min(seconds, 1e9) * 1000)) : nil
    }

    /// The events handler with every URL redacted, the one place for it: a feed could put a key
    /// or a `user:password@` in an image URL, and the pipeline reports the URL it requests.
    private func redactingEvents(_ redactor: SecretRedactor) -> @Sendable (CrawlEvent) -> Void {
        let events = self.events
        return { event in
            switch event {
            case .imageFetched(let url, let outcome, let seconds, let owner):
                events(.imageFetched(url: redactor.redactURL(url), outcome: outcome, seconds: seconds, owner: owner))
            case .retrying(let url, let attempt, let delay, let reason, let source):
                events(.retrying(
                    url: redactor.redactURL(url), attempt: attempt, delay: delay, reason: redactor.redact(reason), source: source))
            case .pageFetched, .warning, .sourceFailed, .itemFinished, .hostSlowed, .storage:
                events(event)
            }
        }
    }

    /// Locks OUT: a whole run (or a merge) exclusively; a shard shares OUT's lock with the
    /// other shards and holds its own part's exclusively.
    static func lock(_ layout: CacheLayout) throws -> [RunLock] {
        // OUT is made when missing, but not its parent: a path on a disk that is not mounted
        // would otherwise fill the file system below it.
        let out = layout.outDirectory
        if !FileIO.exists(out) {
            let parent = FileIO.directoryName(of: out.hasSuffix("/") ? String(out.dropLast()) : out)
            guard FileIO.isDirectory(parent) else {
                throw SetupError.output(
                    "\(out) cannot be made: its parent folder \(parent) does not exist (a disk that is not mounted?); "
                        + "create it first (mkdir -p \(parent)) or choose another --out")
            }
        }
        do {
            try AtomicFile.createDirectories(layout.stateDirectory)
        } catch {
            throw SetupError.output("cannot create \(layout.stateDirectory): \(error)")
        }
        func take(_ path: String, shared: Bool) throws -> RunLock {
            do {
                return try RunLock(path: path, shared: shared)
            } catch .held {
                throw SetupError.locked(path)
            } catch {
                throw SetupError.output("cannot lock \(layout.outDirectory): \(error)")
            }
        }
        guard layout.shard != nil else { return [try take(layout.lockPath, shared: false)] }
        return [try take(layout.outLockPath, shared: true), try take(layout.lockPath, shared: false)]
    }
}
