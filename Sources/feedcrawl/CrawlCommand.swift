import DemoFeed
import FeedCrawlKit
import FoundationEssentials
import Glibc

/// `feedcrawl [options]`: the crawl itself.
enum CrawlCommand {
    static func run(_ arguments: [String]) async -> Never {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions.parse(
                arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            Console.err("feedcrawl: error: \(error)\nRun 'feedcrawl --help' for usage.")
            exit(ExitStatus.usage.rawValue)
        }

        switch options.action {
        case .help:
            Console.out(HelpText.main)
            exit(0)
        case .version:
            Console.out(HelpText.version)
            exit(0)
        case .crawl:
            break
        }

        var demo: DemoFeedServer?
        var configuration: CrawlConfiguration
        if options.usesDemoFeed {
            do {
                let server = try DemoFeedServer(options: DemoFeedOptions())
                demo = server
                configuration = options.crawlConfiguration(
                    demoPixabayURL: server.pixabayURL, demoLaunchesURL: server.launchesURL)
                // Each run's demo server has a new port: cache its images under a port-free name.
                configuration.cacheIdentity = { url in
                    let loopback = "http://127.0.0.1:"
                    guard url.hasPrefix(loopback) else { return url }
                    return "demo-feed:" + url.dropFirst(loopback.count).drop { $0 != "/" }
                }
                Console.err("""
                    feedcrawl: no feed configured, so crawling the built-in demo feed at \(server.baseURL) (loopback only).
                    feedcrawl: for real feeds use --pixabay-url URL (key in PIXABAY_KEY) and/or --launches-url URL; see --help.
                    """)
            } catch {
                Console.err("feedcrawl: error: cannot start the demo feed: \(error)")
                exit(ExitStatus.sourceFailed.rawValue)
            }
        } else {
            configuration = options.crawlConfiguration()
        }

        configuration.checkpoint = CrashPoint.fromEnvironment(ProcessInfo.processInfo.environment)
        let crawler = Crawler(configuration: configuration) { event in
            switch event {
            case .sourceFailed(let source, let message):
                Console.err("feedcrawl: \(source): error: \(TerminalText.sanitize(message))")
            case .warning(let source, let message):
                Console.err("feedcrawl: \(source.isEmpty ? "" : source + ": ")warning: \(TerminalText.sanitize(message))")
            default:
                break
            }
        }
        let crawl = Task { try await crawler.run() }
        let signals = SignalWatcher { _ in crawl.cancel() }

        let report: CrawlReport
        do {
            report = try await crawl.value
        } catch Crawler.SetupError.locked(let path) {
            Console.err("feedcrawl: error: \(path) is held by another feedcrawl run; nothing was changed")
            exit(ExitStatus.locked.rawValue)
        } catch {
            Console.err("feedcrawl: error: \(error)")
            exit(ExitStatus.usage.rawValue)
        }
        demo?.stop()

        for source in report.sources {
            for warning in source.warnings {
                Console.err("feedcrawl: \(source.name): warning: \(TerminalText.sanitize(warning))")
            }
        }
        Console.err(Summary.line(report))
        if report.deadlineReached, let seconds = options.deadlineSeconds {
            Console.err("feedcrawl: deadline of \(DurationParser.format(seconds)) reached: stopped scheduling and cancelled \(report.count(.cancelled)) items")
        }
        if report.evictedFiles > 0 {
            Console.err("feedcrawl: cache over \(ByteSize.format(options.cacheMaxBytes)): evicted \(report.evictedFiles) least-recently-used files (\(ByteSize.format(report.evictedBytes)))")
        }
        if report.overCacheMax {
            Console.err("feedcrawl: warning: the images this run uses take \(ByteSize.format(report.cacheBytes)), more than --cache-max \(ByteSize.format(options.cacheMaxBytes))")
        }
        if let problem = report.storageProblem {
            Console.err("feedcrawl: error: \(problem)")
        }

        var status = ExitStatus.success.rawValue
        if report.problemCount > 0 { status = max(status, ExitStatus.itemsFailed.rawValue) }
        if report.storageProblem != nil { status = max(status, ExitStatus.itemsFailed.rawValue) }
        if report.deadlineReached { status = max(status, ExitStatus.itemsFailed.rawValue) }
        if report.anySourceFailed { status = max(status, ExitStatus.sourceFailed.rawValue) }
        let receivedSignal = signals.firstSignal
        if receivedSignal != 0 { status = max(status, SignalWatcher.status(for: receivedSignal)) }
        exit(status)
    }
}
