import FoundationEssentials
import Glibc

/// Crawls the configured feeds into `OUT/cache/` and writes `OUT/manifest.json`.
///
/// One run at a time per output folder (an advisory lock on `OUT/.lock`). The previous manifest
/// and any journal a killed run left are folded in first; outcomes are journaled as they arrive;
/// the manifest is written atomically at the end, also when the run is cancelled. Then the cache
/// is tidied: least-recently-used files beyond `cacheMaxBytes` are evicted, and files no entry
/// references (and `.part` files) are removed; see `CacheMaintenancePlan`.
public final class Crawler: Sendable {
    public let configuration: CrawlConfiguration
    let events: @Sendable (CrawlEvent) -> Void

    /// Errors that stop a crawl before it starts.
    public enum SetupError: Error, CustomStringConvertible {
        case locked(String)
        case output(String)

        public var description: String {
            switch self {
            case .locked(let path): return "another feedcrawl run holds \(path)"
            case .output(let message): return message
            }
        }
    }

    public init(configuration: CrawlConfiguration, events: @escaping @Sendable (CrawlEvent) -> Void = { _ in }) {
        self.configuration = configuration
        self.events = events
    }

    /// Runs the crawl. Task cancellation (a signal) or `deadlineSeconds` stops it early: nothing
    /// more is scheduled, transfers in flight are cancelled (leaving no partial file), their
    /// items are `cancelled`, and the manifest is still written.
    public func run() async throws -> CrawlReport {
        let started = Date()
        let out = configuration.outDirectory
        let layout = CacheLayout(outDirectory: out)
        do {
            try AtomicFile.createDirectories(out)
        } catch {
            throw SetupError.output("cannot create \(layout.cacheDirectory): \(error)")
        }
        let lock: RunLock
        do {
            lock = try RunLock(path: layout.lockPath)
        } catch .held {
            throw SetupError.locked(layout.lockPath)
        } catch {
            throw SetupError.output("cannot lock \(out): \(error)")
        }
        defer { withExtendedLifetime(lock) {} }

        CrawlStorage.removeLeftoverReserve(layout)
        var leftovers = layout.removeTemporaryManifests()
        // Every run keeps OUT/manifest.journal until its manifest is saved, so a journal here
        // means the last run was killed and may have left partial downloads behind. (Any other
        // `.part` file is found by the end-of-run scan, `finish`.)
        let interrupted = FileIO.exists(layout.journalPath)
        let previous = try loadPrevious(layout)
        do {
            try layout.createFanOutDirectories()
        } catch {
            throw SetupError.output("cannot create the cache in \(layout.cacheDirectory): \(error)")
        }
        if interrupted { leftovers += layout.removeTemporaryFiles() }
        let storage = try Self.makeStorage(layout, configuration: configuration, events: events)

        let journal = try? Journal(path: layout.journalPath)
        // Finished items go to an anonymous file in OUT in 64 KiB chunks (in memory where the
        // file system cannot make one), so a crawl's memory does not grow with its size.
        let ledger = CrawlLedger(
            journal: journal, runStarted: started, store: CompactItems(spill: CompactSpill(directory: out)),
            events: events)
        let cached = Self.cachedImages(previous.items, identity: configuration.cacheIdentity)
        let engine = try HTTPEngine(configuration: .init(
            maxConcurrentTransfers: configuration.concurrency, caInfo: configuration.caInfo))
        defer { engine.shutdown() }
        let secrets = configuration.sources.compactMap { source -> String? in
            if case .pixabay(let config) = source { return config.key }
            return nil
        }
        let redactor = SecretRedactor(secrets: secrets)
        // Cache files are named relative to OUT held open (where it cannot be opened, by path).
        let fetcher = ImageFetcher(
            engine: engine, layout: layout, configuration: configuration, cached: cached, events: events,
            storage: storage, out: try? FileDirectory(path: layout.outDirectory))
        let events = self.events
        let deadlineReached = Locked(false)
        // Images run without a task each: transfers on the engine's thread, their finish
        // (fsync, close, validate, rename) on these threads or inline (ImageFetcher.begin).
        let workers = WorkerThreads(count: Self.finishingThreads(concurrency: configuration.concurrency))
        defer { workers.stop() }
        let placement = FinishPlacement()
        let queue = PrefetchQueue<ImageOutcome>(
            limits: .init(
                concurrency: configuration.concurrency, perHost: configuration.perHost,
                maxWaiting: configuration.maxWaiting),
            keepsOutcomes: false,  // the ledger deduplicates URLs (`claim`); memory stays flat
            start: { request, finish in
                let started = ContinuousClock.now
                let run = fetcher.begin(request.key, workers: workers, placement: placement) { outcome in
                    let elapsed = ContinuousClock.now - started
                    events(.imageFetched(
                        url: redactor.redactURL(request.key), outcome: outcome,
                        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
                    finish(outcome)
                }
                return { run.cancel() }
            },
            cancelled: { request in fetcher.cancelledOutcome(request.key) },
            deliver: { outcome, tokens in
                var outcome = outcome
                if outcome.status == .cancelled, deadlineReached.withLock({ $0 }) {
                    outcome.error = "cancelled: deadline reached"
                }
                ledger.resolve(tokens, with: outcome)
                events(.imageFinished(url: "", status: outcome.status, bytes: outcome.status == .downloaded ? outcome.bytes ?? 0 : 0))
            })
        let sink = ItemSink(
            ledger: ledger, queue: queue, cached: cached, identity: configuration.cacheIdentity, layout: layout,
            ttl: configuration.ttlSeconds, storage: storage)
        let feedFetcher = FeedFetcher(
            engine: engine, configuration: configuration, redactor: redactor, events: events)
        let stores = FeedStores(configuration: configuration, layout: layout)

        let sources = configuration.sources
        let expire: @Sendable () -> Void = {
            deadlineReached.withLock { $0 = true }
            queue.cancelAll()
        }
        let crawlSources: @Sendable () async -> [SourceReport] = {
            await withTaskGroup(of: (Int, SourceReport).self) { group in
                for (index, source) in sources.enumerated() {
                    group.addTask {
                        let report = await Self.crawl(
                            source, sink: sink, fetcher: feedFetcher, redactor: redactor, stores: stores,
                            events: events)
                        // A source that could not be crawled cancels what it queued; the other
                        // sources go on.
                        if report.failure != nil { queue.cancel(group: report.name) }
                        return (index, report)
                    }
                }
                var reports: [(Int, SourceReport)] = []
                for await report in group {
                    reports.append(report)
                    if let failure = report.1.failure {
                        events(.sourceFailed(source: report.1.name, message: failure))
                    }
                }
                await queue.drain()
                return reports.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
        let reports = await withTaskCancellationHandler {
            await Self.withDeadline(configuration.deadlineSeconds, onExpiry: expire, crawlSources) ?? []
        } onCancel: {
            queue.cancelAll()
        }
        let cancelled = Task.isCancelled
        let deadline = deadlineReached.withLock { $0 }

        // Items stay compact records, decoded one at a time as the manifest and the contact
        // sheet are written (see `finish`), so the end of a large run needs little memory.
        let contents = ledger.finishContents()
        let counts = contents.counts
        let bytes = contents.downloadedBytes
        let finished = Date()
        var run = RunRecord(
            startedAt: started, finishedAt: finished, options: RunRecord.redacted(optionsRecord(redactor)),
            counts: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
            bytes: bytes, exitStatus: nil,
            sources: reports.map {
                var summary = RunRecord.SourceSummary(source: $0.name, pages: $0.pages, items: $0.items, error: $0.failure)
                summary.warnings = $0.warnings.isEmpty ? nil : $0.warnings
                return summary
            })
        if deadline { run.deadlineReached = true }
        run.orphansRemoved = leftovers
        storage.releaseForFinalWrite()
        let done = finish(contents: contents, previous: previous.items, layout: layout, run: run)
        var report = CrawlReport(
            startedAt: started, finishedAt: finished, counts: counts, bytesDownloaded: bytes,
            sources: reports, storageProblem: storage.problem(finalWrite: done.storageProblem) ?? ledger.journalProblem,
            cancelled: cancelled,
            manifestPath: layout.manifestPath)
        report.deadlineReached = deadline
        report.evictedFiles = done.plan.evicted.count
        report.evictedBytes = done.plan.evictedBytes
        report.orphansRemoved = done.orphansRemoved + leftovers
        report.cacheBytes = done.plan.cacheBytes
        report.overCacheMax = done.plan.overCap
        report.peakWaiting = queue.maxWaitingObserved
        return report
    }

    /// Threads that finish downloads: enough for fsyncs on a slow disk to overlap, few enough
    /// to stay idle cheaply (2 for 8 or fewer transfers, up to 4).
    static func finishingThreads(concurrency: Int) -> Int {
        min(4, max(2, concurrency / 4))
    }

    /// Folds a journal left by a killed run into the previous manifest, and saves the result.
    private func loadPrevious(_ layout: CacheLayout) throws -> Manifest {
        var manifest: Manifest
        do {
            manifest = try ManifestStore.load(path: layout.manifestPath)
        } catch {
            throw SetupError.output("\(error)")
        }
        let journaled = (try? Journal.load(path: layout.journalPath)) ?? []
        if !journaled.isEmpty {
            manifest = manifest.folding(journaled)
            do {
                try ManifestStore.save(manifest, path: layout.manifestPath)
                try Journal.remove(path: layout.journalPath)
            } catch {
                throw SetupError.output("cannot fold the journal into the manifest: \(error)")
            }
        }
        return manifest
    }

    /// The newest cache record for each image URL.
    static func cachedImages(
        _ items: [ManifestItem], identity: (String) -> String
    ) -> [String: CachedImage] {
        var cached: [String: CachedImage] = [:]
        func add(_ url: String, _ record: CachedImage) {
            let key = identity(url)
            if let existing = cached[key], existing.fetchedAt >= record.fetchedAt { return }
            cached[key] = record
        }
        for item in items {
            if let url = item.imageURL, let record = CachedImage(item: item) { add(url, record) }
            if let details = item.details, let url = details.largePatchURL, let record = CachedImage(details: details) {
                add(url, record)
            }
        }
        return cached
    }

    private func optionsRecord(_ redactor: SecretRedactor) -> [String: String] {
        var options: [String: String] = [
            "concurrency": String(configuration.concurrency),
            "perHost": String(configuration.perHost),
            "ttlSeconds": String(Int(configuration.ttlSeconds)),
            "retries": String(configuration.retries),
            "refreshPages": String(configuration.refreshPages),
            "cacheMaxBytes": String(configuration.cacheMaxBytes),
        ]
        if let record = configuration.recordDirectory { options["record"] = record }
        if let replay = configuration.replayDirectory { options["replay"] = replay }
        if let deadline = configuration.deadlineSeconds { options["deadlineSeconds"] = String(deadline) }
        for source in configuration.sources {
            switch source {
            case .pixabay(let config):
                options["\(config.name).url"] = redactor.redactURL(config.url)
                options["\(config.name).pages"] = String(config.pages)
                options["\(config.name).perPage"] = String(config.perPage)
                if let query = config.query { options["\(config.name).query"] = redactor.redact(query) }
            case .launches(let config):
                options["\(config.name).url"] = config.url
                options["\(config.name).pages"] = String(config.pages)
                options["\(config.name).patchSize"] = config.patchSize.rawValue.lowercased()
                options["\(config.name).details"] = String(config.details)
            case .array(let config):
                options["\(config.name).url"] = redactor.redactURL(config.url)
                options["\(config.name).pages"] = String(config.pages)
                options["\(config.name).perPage"] = String(config.perPage)
                options["\(config.name).idField"] = config.idField
                options["\(config.name).imageField"] = config.imageField
            }
            options["\(source.name).pageTTLSeconds"] = String(Int(source.pageTTL))
        }
        return options
    }
}
