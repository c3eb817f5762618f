import FoundationEssentials
import Glibc

/// Crawls the configured feeds into `OUT/cache/` and writes `OUT/manifest.json`.
///
/// One run at a time per output folder (an advisory lock on `OUT/.lock`). The previous manifest
/// and any journal a killed run left are folded in first; outcomes are journaled as they arrive;
/// the manifest is written atomically at the end, also when the run is cancelled.
public final class Crawler: Sendable {
    public let configuration: CrawlConfiguration
    private let events: @Sendable (CrawlEvent) -> Void

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

    /// Runs the crawl. Task cancellation stops it early; the manifest is still written.
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

        // Every run keeps OUT/manifest.journal until its manifest is saved, so a journal here
        // means the last run was killed and may have left partial downloads behind.
        let interrupted = FileIO.exists(layout.journalPath)
        let previous = try loadPrevious(layout)
        do {
            try layout.createFanOutDirectories()
        } catch {
            throw SetupError.output("cannot create the cache in \(layout.cacheDirectory): \(error)")
        }
        if interrupted { layout.removeTemporaryFiles() }

        let journal = try? Journal(path: layout.journalPath)
        let ledger = CrawlLedger(journal: journal, runStarted: started, events: events)
        let cached = Self.cachedImages(previous.items, identity: configuration.cacheIdentity)
        let engine = try HTTPEngine(configuration: .init(
            maxConcurrentTransfers: configuration.concurrency, caInfo: configuration.caInfo))
        defer { engine.shutdown() }
        let secrets = configuration.sources.compactMap { source -> String? in
            if case .pixabay(let config) = source { return config.key }
            return nil
        }
        let redactor = SecretRedactor(secrets: secrets)
        let fetcher = ImageFetcher(
            engine: engine, layout: layout, configuration: configuration, cached: cached, events: events)
        let events = self.events
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
                let run = fetcher.begin(request.key, workers: workers, placement: placement, done: finish)
                return { run.cancel() }
            },
            cancelled: { _ in ImageOutcome(status: .cancelled, error: "cancelled") },
            deliver: { outcome, tokens in
                ledger.resolve(tokens, with: outcome)
                events(.imageFinished(url: "", status: outcome.status, bytes: outcome.status == .downloaded ? outcome.bytes ?? 0 : 0))
            })
        let ttl = configuration.ttlSeconds
        let identity = configuration.cacheIdentity
        let emit: @Sendable (Int, [FeedItem]) async -> Void = { page, items in
            for item in items {
                let token = ledger.register(item)
                await Self.schedule(item, token: token, page: page, queue: queue, ledger: ledger,
                                    cached: cached, identity: identity, layout: layout, ttl: ttl)
            }
        }
        let feedFetcher = FeedFetcher(
            engine: engine, configuration: configuration, redactor: redactor, events: events)

        let reports = await withTaskCancellationHandler {
            await withTaskGroup(of: (Int, SourceReport).self) { group in
                for (index, source) in configuration.sources.enumerated() {
                    group.addTask {
                        let report: SourceReport
                        switch source {
                        case .pixabay(let config):
                            report = await PixabayCrawl(
                                config: config, fetcher: feedFetcher, redactor: redactor, emit: emit).run()
                        case .launches(let config):
                            report = await LaunchesCrawl(
                                config: config, fetcher: feedFetcher, redactor: redactor, emit: emit).run()
                        }
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
        } onCancel: {
            queue.cancelAll()
        }
        let cancelled = Task.isCancelled

        let contents = ledger.finishContents()
        let counts = contents.counts
        let bytes = contents.downloadedBytes
        let finished = Date()
        // Items are streamed into the file from the ledger's compact records (ManifestWriter).
        var manifest = Manifest(generatedAt: finished)
        manifest.run = RunRecord(
            startedAt: started, finishedAt: finished, options: RunRecord.redacted(optionsRecord(redactor)),
            counts: Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }),
            bytes: bytes, exitStatus: nil,
            sources: reports.map {
                RunRecord.SourceSummary(source: $0.name, pages: $0.pages, items: $0.items, error: $0.failure)
            })
        var storageProblem = ledger.journalProblem
        do {
            try ManifestWriter.save(
                manifest, sortedItems: contents.sortedItems(mergedWith: previous.items), path: layout.manifestPath)
            try? Journal.remove(path: layout.journalPath)
        } catch {
            storageProblem = "cannot write the manifest: \(error)"
        }
        // Without a journal a later run could not tell that this one left anything behind.
        if journal == nil { layout.removeTemporaryFiles() }
        return CrawlReport(
            startedAt: started, finishedAt: finished, counts: counts, bytesDownloaded: bytes,
            sources: reports, storageProblem: storageProblem, cancelled: cancelled,
            manifestPath: layout.manifestPath)
    }

    /// Threads that finish downloads: enough for fsyncs on a slow disk to overlap, few enough
    /// to stay idle cheaply (2 for 8 or fewer transfers, up to 4).
    static func finishingThreads(concurrency: Int) -> Int {
        min(4, max(2, concurrency / 4))
    }

    /// Gives the item its outcome now (no image, unusable, fresh in the cache) or queues its image.
    private static func schedule(
        _ item: FeedItem, token: Int, page: Int, queue: PrefetchQueue<ImageOutcome>, ledger: CrawlLedger,
        cached: [String: CachedImage], identity: (String) -> String, layout: CacheLayout, ttl: Double
    ) async {
        if let problem = item.problem {
            ledger.resolve([token], with: ImageOutcome(status: .rejected, error: problem))
            return
        }
        guard let url = item.imageURL, !url.isEmpty else {
            ledger.resolve([token], with: ImageOutcome(status: .noImage))
            return
        }
        if let record = cached[identity(url)], -record.fetchedAt.timeIntervalSinceNow < ttl,
            layout.fileExists(relativePath: record.file)
        {
            ledger.resolve([token], with: record.outcome(.fresh))
            return
        }
        // A URL listed before: reuse its outcome if it has one (else the queue joins the transfer).
        if let earlier = ledger.claim(url: url, token: token), let outcome = ledger.outcome(of: earlier),
            outcome.status != .cancelled
        {
            ledger.resolve([token], with: outcome)
            return
        }
        await queue.submit(
            key: url, host: URLCheck.host(of: url), group: item.source,
            priority: PrefetchPriority(page: page), subscriber: token)
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
        for item in items {
            guard let url = item.imageURL, let record = CachedImage(item: item) else { continue }
            let key = identity(url)
            if let existing = cached[key], existing.fetchedAt >= record.fetchedAt { continue }
            cached[key] = record
        }
        return cached
    }

    private func optionsRecord(_ redactor: SecretRedactor) -> [String: String] {
        var options: [String: String] = [
            "concurrency": String(configuration.concurrency),
            "perHost": String(configuration.perHost),
            "ttlSeconds": String(Int(configuration.ttlSeconds)),
            "retries": String(configuration.retries),
        ]
        for source in configuration.sources {
            switch source {
            case .pixabay(let config):
                options["\(config.name).url"] = redactor.redactURL(config.url)
                options["\(config.name).pages"] = String(config.pages)
                options["\(config.name).perPage"] = String(config.perPage)
            case .launches(let config):
                options["\(config.name).url"] = config.url
                options["\(config.name).pages"] = String(config.pages)
            }
        }
        return options
    }
}
