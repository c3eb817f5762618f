import FoundationEssentials
import Glibc
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// Crawls the configured feeds into `OUT/cache/` and commits what it listed to OUT's archive
/// (`Repository`: `OUT/manifest.json`, the root, naming the files under `OUT/archive/`).
///
/// One run at a time per output folder (`OUT/.lock`, or a lease in a bucket). The archive is
/// opened first (a killed run's journal files adopted; an earlier release's manifest converted).
/// Then the sources page through their feeds, each page's items going to the `ImagePipeline`,
/// which fetches their images into the cache; each finished page is journaled as one group
/// (`PageRecorder`, `RunJournal`), and a page that is unchanged and needs no work is settled
/// without its items being touched. At the end, also when the run is cancelled, the archive is
/// committed (`Repository.commit`: tables, then the root); then what a killed run left is swept
/// and the contact sheet's changed pages are written.
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
    /// images are `cancelled`, and the archive is still committed.
    ///
    /// Every file goes through the archive's backend (`Backends`: OUT as a folder or a bucket,
    /// retries, pacing, the deadline): the lock is taken, the archive opened (a journal an
    /// unfinished run left adopted; an older manifest converted), and the run's pages are
    /// journaled as they finish; at the end the archive is committed (tables, then the root),
    /// what it no longer names is removed, and the contact sheet is written. A lock lost while
    /// the run goes on stops it.
    ///
    /// The archive's own files (the lock, the journal, the tables and the root) go through a
    /// stack that honours `--deadline` until the crawl ends, then one without it (`openBackend`):
    /// the deadline stops fetching, and a stack that honours it refuses every operation started
    /// after it, the closing writes included.
    public func run() async throws -> CrawlReport {
        let (archive, backend) = try Self.openBackend(configuration, policy: policy) { [events] message, detail in
            events(.storage(message: message, detail: detail))
        }
        let locks = try await Self.lock(archive, shard: configuration.shard)
        let crawl = Task { try await self.run(on: backend, archive: archive, locks: locks) }
        for lock in locks {
            lock.keepHolding { [events = self.events] message in
                events(.warning(source: "", message: message))
                crawl.cancel()
            }
        }
        let report: CrawlReport
        do {
            report = try await withTaskCancellationHandler {
                try await crawl.value
            } onCancel: {
                crawl.cancel()
            }
        } catch {
            for lock in locks { await lock.release() }
            throw error
        }
        for lock in locks { await lock.release() }
        return report
    }

    /// The run on `backend` (images, kept pages: bounded by `--deadline`) and `archive` (the
    /// archive's own files, without `--deadline`), its `locks` held (one lost: nothing is
    /// committed, another run may hold OUT now).
    private func run(on backend: any Backend, archive: PhasedBackend, locks: [any BackendLock]) async throws -> CrawlReport {
        let started = Date().wholeMilliseconds  // as the run record writes it: see `RunRecord.listedSince`
        let startedMS = Int64((started.timeIntervalSince1970 * 1000).rounded())
        let state = configuration.shard.map { $0.directory + "/" } ?? ""
        let repository = try await Self.openRepository(archive, state: state, events: events)
        if repository.adopted > 0 {
            // What an unfinished run journaled joins the archive now, so that its images are found.
            do {
                _ = try await repository.commit(journal: nil, run: repository.root.run, generatedAt: Date())
            } catch {
                throw SetupError.output("cannot store the archive at \(archive.location(Repository.rootHandle(state: state))): \(error)")
            }
        }
        if configuration.shard != nil, repository.base == nil {
            // A shard reuses what OUT's own archive holds (plain runs', earlier merges').
            repository.base = try? await Repository.open(archive, state: "")
        }
        let storage = try Self.makeStorage(archive, configuration: configuration, events: events)
        // A run that did not finish (killed) may have left images no group names and staged
        // bodies: the marker says so, and this run sweeps them at its end.
        let unfinished = try await Self.markUnfinished(archive, state: state)
        let shard = configuration.shard
        // What killed runs (and killed shards) declared they would fetch: swept at the end of a
        // plain run (shards leave them to it: another shard may be using the cache).
        let intentsLeft = shard == nil ? ((try? await RunIntents.left(on: archive)) ?? []) : []
        let journal = RunJournal(
            backend: archive, state: state, started: startedMS,
            firstNumber: Self.firstGroupNumber(max(repository.root.nextGroup, repository.base?.root.nextGroup ?? 0), shard: shard),
            step: UInt32(shard?.count ?? 1))
        let recorder = PageRecorder(journal: journal, runStarted: started, events: events)
        let intents = RunIntents(backend: archive, state: state, run: journal.run)
        let engine = try HTTPEngine(configuration: .init(
            maxConcurrentTransfers: configuration.concurrency, userAgent: configuration.userAgent,
            caInfo: configuration.caInfo, proxy: configuration.proxy, noProxy: configuration.noProxy))
        defer { engine.shutdown() }
        let redactor = SecretRedactor(secrets: configuration.sources.flatMap(\.secrets))
        let events = redactingEvents(redactor)
        let pipeline = ImagePipeline(
            engine: engine, backend: backend, settings: pipelineSettings(), archive: repository, recorder: recorder,
            intents: intents, storage: storage, events: events)

        let deadlineReached = Locked(false)
        let crawl: @Sendable () async -> [SourceReport] = {
            let reports = await self.crawlSources(
                pipeline: pipeline, engine: engine, backend: backend, repository: repository, runStarted: startedMS,
                redactor: redactor, events: events)
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
        // From here on past `--deadline`: the archive's writes go through the stack without it.
        archive.end()
        // The end runs whole even when the run was cancelled (a signal): what was done is
        // committed. A task of its own does not inherit the cancellation.
        let end = Task { () async -> CrawlReport in
            storage.releaseForFinalWrite()
            await pipeline.finish()

            let finished = Date()
            var run = RunRecord(
                startedAt: started, finishedAt: finished, options: RunRecord.redacted(optionsRecord(redactor)),
                bytes: pipeline.downloadedBytes, sources: reports.map(\.summary))
            if deadline { run.deadlineReached = true }
            if cancelled { run.interrupted = true }
            run.shard = shard?.description
            configuration.checkpoint?(.outcomesJournaled)
            // Which failures are news: compared with the archive as the run found it (before the
            // commit names this run's records).
            let newFailures = await Self.newFailures(recorder.failures, in: repository)
            // The end (`Repository.commit`): the run's groups join the table, the indexes and the
            // table are saved, then the root; a failure leaves the journal for the next run.
            var committed: Repository.Committed?
            var commitProblem: String?
            // Kept pages of sources no longer configured: nothing reads them again (gone before
            // OUT is measured for `--cache-max`).
            if shard == nil, !cancelled, !deadline {
                let gone = await KeptPages(backend: archive, maxFileBytes: 0)
                    .prune(keeping: Set(configuration.sources.map(\.name)))
                if gone > 0 {
                    events(.warning(source: "", message: "removed \(gone) kept feed page\(gone == 1 ? "" : "s") of sources this run is not configured with"))
                }
            }
            // What OUT holds besides images, which `--cache-max` counts too (a shard never evicts).
            var footprint: ArchiveFootprint?
            if shard == nil {
                do {
                    footprint = try await ArchiveFootprint.measure(archive)
                } catch {
                    events(.warning(source: "", message: "cannot measure what OUT holds besides images (\(error)); --cache-max counts the images alone this run"))
                }
            }
            do {
                // A lock lost (another run may hold OUT now): nothing more is written.
                if locks.contains(where: { !$0.isHeld }) {
                    throw BackendError(
                        .lockHeld, "commit", location: archive.location(Repository.rootHandle(state: state)),
                        reason: "the run's lock was lost; its pages stay in its journal for the next run")
                }
                // `--cache-max` is planned only when the archive, the rest of OUT and this run's
                // downloads together could exceed it, and never in a shard (the merge evicts:
                // another shard may use the files). The images get what the rest leaves.
                let others = footprint?.total ?? 0
                let cap = shard == nil
                    && repository.root.totals.bytes + pipeline.downloadedBytes + others > configuration.cacheMaxBytes
                    ? max(configuration.cacheMaxBytes - others, 0) : nil
                committed = try await repository.commit(
                    journal: journal, run: run, generatedAt: finished, capBytes: cap, protectedSince: startedMS)
            } catch {
                commitProblem = "cannot store the archive: \(error)"
            }
            configuration.checkpoint?(.manifestWritten)
            var removed = 0
            var forgetting = ForgetOutcome()
            if committed != nil {
                // Earlier copies of URLs saved under another name: the new root no longer names them.
                for handle in pipeline.replacedFiles where (try? await archive.remove(handle)) != nil { removed += 1 }
                removed += committed?.unnamedFiles ?? 0
                if let after = configuration.forgetAfterSeconds, shard == nil, !cancelled, !deadline {
                    forgetting = await Self.forget(
                        after: after, reports: reports, started: startedMS, limit: configuration.maxDelete,
                        repository: repository, archive: archive)
                    if let root = forgetting.root { committed?.root = root }
                }
                if shard == nil, unfinished || !intentsLeft.isEmpty {
                    removed += await Self.sweep(archive, repository: repository, intents: intentsLeft, partials: unfinished)
                }
                // The run's images are named by the root now (or removed): its intents are done.
                await intents.removeAll()
            }
            // The contact sheet of the committed archive (a shard writes none: the merge does).
            var sheetProblem: String?
            if let committed, shard == nil {
                let checkpoint = configuration.checkpoint
                sheetProblem = await ContactSheet.writeReporting(
                    repository: repository, run: committed.root.run, backend: archive,
                    linkBase: configuration.publicURL ?? "", pagesSaved: { checkpoint?(.sheetPagesSaved) })
            }
            // Finished once the sheet is written too: a run killed while writing it leaves the
            // marker, and the next run sweeps what it staged.
            if committed != nil { await Self.markFinished(archive, state: state) }
            let problems = [storage.problem, commitProblem].compactMap { $0 }
            let listed = committed?.listed ?? [:]
            var report = CrawlReport(
                startedAt: started, finishedAt: finished, counts: Self.counts(listed.values.map(\.items)),
                bytesDownloaded: pipeline.downloadedBytes, sources: reports,
                storageProblem: problems.isEmpty ? recorder.journalProblem : problems.joined(separator: "; "),
                cancelled: cancelled, manifestPath: backend.location(Repository.rootHandle(state: state)))
            report.imageCounts = Self.counts(listed.values.map(\.images))
            report.runBySource = listed.mapValues(Self.statusCounts)
            report.manifestBySource = (committed?.root.totals.sources ?? [:]).mapValues(Self.statusCounts)
            report.shard = shard
            report.contactSheetProblem = sheetProblem
            report.deadlineReached = deadline
            report.orphansRemoved = removed
            report.forgottenItems = forgetting.plan?.items ?? [:]
            report.forgottenFiles = forgetting.plan?.files.count ?? 0
            report.forgottenBytes = forgetting.plan?.bytes ?? 0
            report.forgetProblem = forgetting.problem
            report.evictedFiles = committed?.evictedFiles ?? 0
            report.evictedBytes = committed?.evictedBytes ?? 0
            report.overCacheMax = committed?.overCap ?? false
            report.cacheBytes = committed?.root.totals.bytes ?? 0
            report.cacheFiles = committed?.root.totals.files ?? 0
            report.footprint = committed == nil ? nil : footprint
            report.sourceNames = configuration.sources.map(\.name)
            report.peakWaiting = pipeline.peakWaiting
            report.newFailures = newFailures
            report.failureTolerance = configuration.failureTolerance
            report.uploads = backend.properties.canFillUp ? nil : pipeline.savedFiles
            return report
        }
        return await end.value
    }

    /// This run's failed and rejected items (`failures`: those it recorded, and the number of
    /// those it had no room to compare) that are new, by source: the archive `repository` (or,
    /// for a shard, OUT's archive under it) holds no earlier record of the item, or one that
    /// failed another way. The failures of pages settled from the archive, and those recorded
    /// the same way again, are repeated. An archive that cannot be read counts them new.
    static func newFailures(_ failures: (marks: [FailureMark], unmarked: [String: Int]), in repository: Repository) async -> [String: Int] {
        var new = failures.unmarked
        for mark in failures.marks {
            var earlier: ManifestItem?
            var archive: Repository? = repository
            while earlier == nil, let current = archive {
                if let (entry, position) = try? await current.locate(source: mark.source, id: mark.id) {
                    earlier = try? await current.item(of: entry, at: position)
                }
                archive = current.base
            }
            if earlier.map(FailureMark.way) != mark.way { new[mark.source, default: 0] += 1 }
        }
        return new
    }

    /// Counts by status text, summed, as `ItemStatus` counts.
    static func counts(_ tables: [[String: Int]]) -> [ItemStatus: Int] {
        var counts: [ItemStatus: Int] = [:]
        for table in tables {
            for (status, n) in table { if let status = ItemStatus(rawValue: status) { counts[status, default: 0] += n } }
        }
        return counts
    }

    /// A source's totals as `StatusCounts`.
    static func statusCounts(_ totals: RepositoryRoot.SourceTotals) -> StatusCounts {
        var counts = StatusCounts()
        counts.items = Self.counts([totals.items])
        counts.images = Self.counts([totals.images])
        return counts
    }

    /// The first group number a run gives: the archive's next, and for shard K of N the next
    /// one that is K mod N, so that shards running at once never give two groups one number.
    static func firstGroupNumber(_ next: UInt32, shard: Shard?) -> UInt32 {
        guard let shard else { return next }
        let count = UInt32(shard.count), index = UInt32(shard.index)
        let base = next - next % count + index
        return base >= next ? base : base + count
    }

    /// Crawls every source concurrently; a source that could not be crawled cancels its images
    /// (other sources go on).
    private func crawlSources(
        pipeline: ImagePipeline, engine: HTTPEngine, backend: any Backend, repository: Repository, runStarted: Int64,
        redactor: SecretRedactor, events: @escaping @Sendable (CrawlEvent) -> Void
    ) async -> [SourceReport] {
        let sources = configuration.sources
        let stores = FeedStores(configuration: configuration, backend: backend)
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
                    await client.pruneKeptPages()
                    var pages = PageLedger(
                        archive: repository, source: source.name, recipe: source.recipe(redactor), runStarted: runStarted,
                        ttl: self.configuration.ttlSeconds, identity: self.configuration.pageIdentity)
                    pages.pageTTL = source.pageTTL
                    pages.refresh = self.configuration.refreshPages
                    pages.recording = self.configuration.recordDirectory != nil
                    var report = await Self.crawl(
                        source, group: index, shard: self.configuration.shard, client: client, redactor: redactor,
                        pipeline: pipeline, pages: pages)
                    // A page listed after the device filled up is not recorded: a failed page,
                    // so that the items the source listed add up (issue 35).
                    for page in pipeline.droppedPages(group: index) {
                        report.pageFailed(page, "not recorded: the output device is full; its items are not in this run's "
                            + "counts, and the next run lists it again")
                    }
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
        pipeline: ImagePipeline, pages: PageLedger
    ) async -> SourceReport {
        guard SourceConfiguration.isValidName(source.name) else {
            var report = SourceReport(name: source.name)
            report.failure = "invalid source name (use 1 to 64 of A-Z a-z 0-9 . _ -)"
            return report
        }
        let context = FeedCrawlContext(
            client: client, redactor: redactor, pipeline: pipeline, group: group, shard: shard, pages: pages)
        return await source.feed.crawl(context)
    }

    /// The pipeline's settings.
    private func pipelineSettings() -> ImagePipeline.Settings {
        var settings = ImagePipeline.Settings()
        settings.limits = .init(
            concurrency: configuration.concurrency, perHost: configuration.perHost, maxWaiting: configuration.maxWaiting)
        settings.policy = policy
        settings.maxImageBytes = configuration.maxImageBytes
        settings.ttlSeconds = configuration.ttlSeconds
        settings.identity = configuration.cacheIdentity
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

}
