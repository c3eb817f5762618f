import DemoFeed
import FeedCrawlKit
import FoundationEssentials
import Glibc
import FeedCrawlSupport

/// `feedcrawl [options]`: the crawl itself.
enum CrawlCommand {
    static func run(_ arguments: [String]) async -> Never {
        let environment = ProcessInfo.processInfo.environment
        let loaded: LoadedConfiguration
        let fileSources: [SourceConfiguration]?
        do {
            loaded = try LoadedConfiguration.load(arguments: arguments, environment: environment)
            fileSources = try loaded.fileSources(environment: environment)
        } catch {
            usageError(error, arguments: arguments)
        }
        let options = loaded.options

        switch options.action {
        case .help:
            HelpText.show(HelpText.main)
            exit(0)
        case .version:
            Console.out(BuildInfo.versionText)
            exit(0)
        case .crawl:
            break
        }

        var demo: DemoFeedServer?
        var configuration: CrawlConfiguration
        var notices: [String] = []
        if let fileSources {
            configuration = options.crawlConfiguration()
            configuration.sources = fileSources
        } else if options.usesDemoFeed {
            do {
                let server = try DemoFeedServer(options: demoOptions(environment))
                demo = server
                configuration = options.crawlConfiguration(demoURLs: [
                    PixabaySourceConfiguration.type: server.pixabayURL, LaunchesSourceConfiguration.type: server.launchesURL,
                ])
                // Each run's demo server has a new port: cache its images under a port-free name.
                configuration.cacheIdentity = { url in
                    let loopback = "http://127.0.0.1:"
                    guard url.hasPrefix(loopback) else { return url }
                    return "demo-feed:" + url.dropFirst(loopback.count).drop { $0 != "/" }
                }
                // Its pages name that port too: digest them without it, so an unchanged page settles.
                let origin = Array(server.baseURL.utf8)
                configuration.pageIdentity = { body in Self.masking(origin, in: body) }
                notices = [
                    "no feed configured, so crawling the built-in demo feed at \(server.baseURL) (loopback only).",
                    "for real feeds use --pixabay-url URL (key in PIXABAY_KEY) and/or --launches-url URL, or a config file; see --help.",
                ]
                if options.ux.quiet {
                    // --quiet is for cron: a scheduled run with no feed has most likely lost its
                    // --config, and would fill OUT with made-up data for ever, unnoticed. Said
                    // even under --quiet, so the run's output (cron's mail) shows it.
                    Console.err("feedcrawl: warning: no feed configured: crawling the built-in demo feed (made-up data) into "
                        + "\(DamagedManifest.shellQuoted(options.crawl.outDirectory)); a scheduled run has likely lost its --config")
                }
            } catch let error as CommandLineOptions.UsageError {
                usageError(error, arguments: arguments)
            } catch {
                Console.err("feedcrawl: error: cannot start the demo feed: \(error)")
                exit(ExitStatus.sourceFailed.rawValue)
            }
        } else {
            configuration = options.crawlConfiguration()
        }

        do {
            configuration.objectStore = try options.objectStoreTarget(environment: environment)
            configuration.publicURL = options.publicURL
        } catch {
            demo?.stop()
            usageError(error, arguments: arguments)
        }
        configuration.checkpoint = CrashPoint.fromEnvironment(ProcessInfo.processInfo.environment)
        let output: Reporter
        do {
            output = try Reporter(
                options.ux, stderrIsTerminal: ConsoleWriter.isTerminal(2),
                sources: configuration.sources.map { ($0.name, $0.pages) })
        } catch {
            // The log file asked for cannot be opened: the run cannot do what it was told, a run
            // failure (1), not a usage error.
            demo?.stop()
            Console.err("feedcrawl: error: \(error)")
            if options.ux.json {
                Console.out(RunSummary.failureLine(exitStatus: ExitStatus.itemsFailed.rawValue, message: "\(error)"))
            }
            exit(ExitStatus.itemsFailed.rawValue)
        }
        for notice in notices { output.notice(notice) }

        let crawler = Crawler(configuration: configuration) { event in output.handle(event) }
        output.start()
        let crawl = Task { try await crawler.run() }
        let signals = SignalWatcher(say: { output.interrupted($0) }) { _ in crawl.cancel() }

        let report: CrawlReport
        do {
            report = try await crawl.value
        } catch {
            let (message, status): (String, ExitStatus) = switch error {
            case Crawler.SetupError.locked(let path): (lockedMessage(path), .locked)
            case Crawler.SetupError.leaseHeld(let message): (message, .locked)
            case Crawler.SetupError.damagedManifest(let damage): (damage.description, .damagedManifest)
            // OUT (a folder or a store) could not be read, written or reached: the run failed.
            default: ("\(error)", .itemsFailed)
            }
            output.fail(message, status: status.rawValue)
            exit(status.rawValue)
        }
        demo?.stop()

        let itemsFailed = report.failingItems > 0 || report.storageProblem != nil || report.deadlineReached
            || report.sources.contains { $0.failedPages > 0 || $0.missingDetails > 0 }
        var status = (itemsFailed ? ExitStatus.itemsFailed : .success).rawValue
        var closingNotices: [String] = []
        var warnings: [String] = []
        var outputProblems: [String] = []
        if report.deadlineReached, let seconds = options.crawl.deadlineSeconds {
            closingNotices.append("deadline of \(DurationParser.format(seconds)) reached: stopped scheduling and cancelled \(report.count(.cancelled)) items")
        }
        if report.toleratedFailures > 0 {
            let repeated = report.repeatedFailures
            closingNotices.append("\(report.toleratedFailures) of \(report.failures) failed or rejected item\(report.failures == 1 ? "" : "s") "
                + "(\(report.failures - repeated) new, \(repeated) repeated) tolerated (\(report.failureTolerance.described)): they do not fail the run")
        }
        if report.evictedFiles > 0 {
            closingNotices.append("cache over \(ByteSize.format(options.crawl.cacheMaxBytes)): evicted \(report.evictedFiles) least-recently-used files (\(ByteSize.format(report.evictedBytes)))")
        }
        if !report.forgottenItems.isEmpty, let after = options.crawl.forgetAfterSeconds {
            let count = report.forgottenItems.values.reduce(0, +)
            let bySource = ForgetRecord.bySource(report.forgottenItems)
            closingNotices.append("forgot \(count) item\(count == 1 ? "" : "s") no run listed for \(DurationParser.format(after)) "
                + "(\(bySource)) and removed \(report.forgottenFiles) files (\(ByteSize.format(report.forgottenBytes)))")
        }
        if let problem = report.forgetProblem { outputProblems.append(problem) }
        if report.overCacheMax {
            let others = report.footprint?.total ?? 0
            warnings.append("the images this run uses take \(ByteSize.format(report.cacheBytes))"
                + (others > 0 ? " and the rest of OUT (the archive's own files, kept feed pages, the contact sheet) \(ByteSize.format(others))" : "")
                + ", more than --cache-max \(ByteSize.format(options.crawl.cacheMaxBytes))")
        }
        if report.anySourceFailed { status = max(status, ExitStatus.sourceFailed.rawValue) }
        let receivedSignal = signals.firstSignal
        if receivedSignal != 0 { status = max(status, SignalWatcher.status(for: receivedSignal)) }
        // What was asked for and is missing fails the run, also under --quiet.
        if let problem = report.contactSheetProblem { outputProblems.append(problem) }
        let logProblemBefore = output.logFileProblem
        if let problem = logProblemBefore { outputProblems.append(problem) }
        if !outputProblems.isEmpty { status = max(status, ExitStatus.itemsFailed.rawValue) }
        // One set of metrics for the file and the push (the file's last success read before it is replaced).
        let metricsPath = options.metricsFile.map { MetricsFile.path($0, shard: options.crawl.shard) }
        let metrics = MetricsFile.crawl(report, exitStatus: Int(status), previous: metricsPath, version: BuildInfo.version)
        if let path = metricsPath {
            do {
                try metrics.write(to: path)
            } catch {
                outputProblems.append("cannot write the metrics file: \(error)")
            }
        }
        if let push = options.metricsPushTarget() {
            do {
                try await push.push(metrics, exitStatus: Int(status))
            } catch {
                outputProblems.append("cannot push the metrics: \(error)")
            }
        }
        if !outputProblems.isEmpty { status = max(status, ExitStatus.itemsFailed.rawValue) }
        // Failed or rejected images: say how to list them (a shard's are listed after the merge).
        var hint: String?
        if report.count(.failed) + report.count(.rejected) > 0, options.crawl.shard == nil {
            hint = "list them: feedcrawl manifest --out \(DamagedManifest.shellQuoted(options.crawl.outDirectory)) --status failed,rejected"
        }
        // Stopped by a signal: what was done is kept; the same command carries on from there.
        let next = receivedSignal == 0 ? nil
            : "interrupted: run the same command again to finish the job (what was fetched is kept)"
        output.finish(
            report: report, status: status, notices: closingNotices, warnings: warnings, errors: outputProblems, hint: hint,
            next: next)
        // The log file failing only while the run was ending.
        if logProblemBefore == nil, let problem = output.logFileProblem {
            Console.err("feedcrawl: error: \(problem)")
            status = max(status, ExitStatus.itemsFailed.rawValue)
        }
        exit(status)
    }

    /// Development knobs for the built-in demo feed, from the environment (not in --help):
    /// `FEEDCRAWL_DEMO_LATENCY_MS` (delay added to every response, 0–60000) and
    /// `FEEDCRAWL_DEMO_FAIL_RATE` (fraction 0–1 of feed and image requests answered with HTTP
    /// 500), to watch the progress display or the retry logs on a slow, flaky feed.
    static func demoOptions(_ environment: [String: String]) throws -> DemoFeedOptions {
        var options = DemoFeedOptions()
        if let text = environment["FEEDCRAWL_DEMO_LATENCY_MS"], !text.isEmpty {
            guard let ms = Int(text), (0...60_000).contains(ms) else {
                throw CommandLineOptions.UsageError(description: "FEEDCRAWL_DEMO_LATENCY_MS takes 0 to 60000, not '\(TerminalText.sanitize(text))'")
            }
            options.latencyMs = ms
        }
        if let text = environment["FEEDCRAWL_DEMO_FAIL_RATE"], !text.isEmpty {
            guard let rate = Double(text), (0...1).contains(rate) else {
                throw CommandLineOptions.UsageError(description: "FEEDCRAWL_DEMO_FAIL_RATE takes 0 to 1, not '\(TerminalText.sanitize(text))'")
            }
            options.failRate = rate
        }
        return options
    }

    /// What a run that finds `path` locked says: who holds it (the PID its lock file records,
    /// when that process is alive) and what to do.
    static func lockedMessage(_ path: String) -> String {
        guard let pid = RunLock.livePID(path: path) else {
            return "\(path) is held by another feedcrawl run; nothing was changed. Run again when it has finished"
        }
        return "\(path) is held by another feedcrawl run; nothing was changed. It is pid \(pid): "
            + "run again when it has finished, or stop it first (kill \(pid))"
    }

    /// Exits with status 2 after a usage or configuration error (a configuration file's names
    /// the file and the key, so no help is pointed to), with its JSON line after `--json`.
    static func usageError(_ error: any Error, arguments: [String]) -> Never {
        Console.usageError("\(error)", help: error is ConfigError ? nil : "feedcrawl", json: arguments.contains("--json"))
    }

    /// `body` with every occurrence of `origin` left out.
    static func masking(_ origin: [UInt8], in body: [UInt8]) -> [UInt8] {
        guard !origin.isEmpty, body.count >= origin.count else { return body }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var index = 0
        while index < body.count {
            if body[index] == origin[0], index + origin.count <= body.count,
               body[index..<index + origin.count].elementsEqual(origin) {
                index += origin.count
            } else {
                out.append(body[index])
                index += 1
            }
        }
        return out
    }
}
