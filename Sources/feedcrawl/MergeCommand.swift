import FeedCrawlKit
import FoundationEssentials
import Glibc
import FeedCrawlSupport

/// `feedcrawl manifest merge [crawl options]`: joins the shard parts of OUT into its manifest.
/// It takes the same options as a crawl (so a job can hand it the crawl's own), and uses
/// `--out`, `--config`, `--cache-max`, `--metrics-file`, `--metrics-push`, `--quiet` and
/// `--json` from them (and `--proxy`, `--noproxy`, `--cacert`, `--user-agent` for the push).
enum MergeCommand {
    static func run(_ arguments: [String]) async -> Never {
        if arguments.contains("-h") || arguments.contains("--help") {
            HelpText.show(HelpText.merge)
            exit(0)
        }
        var environment = ProcessInfo.processInfo.environment
        // Source options are accepted and ignored: no key is needed to merge.
        if (environment["PIXABAY_KEY"] ?? "").isEmpty { environment["PIXABAY_KEY"] = "unused-by-merge" }
        let options = Console.orUsageError(help: "feedcrawl manifest merge") {
            try LoadedConfiguration.load(arguments: arguments, environment: environment).options
        }
        var merge = ShardMerge(outDirectory: options.crawl.outDirectory)
        merge.cacheMaxBytes = options.crawl.cacheMaxBytes
        merge.objectStore = Console.orUsageError(help: "feedcrawl manifest merge") {
            try options.objectStoreTarget(environment: environment)
        }
        merge.network = options.network()
        merge.publicURL = options.publicURL
        let report: ShardMerge.Report
        do {
            report = try await merge.run()
        } catch Crawler.SetupError.leaseHeld(let message) {
            Console.fail(message, status: .locked, json: options.ux.json)
        } catch Crawler.SetupError.locked(let path) {
            let pid = RunLock.livePID(path: path).map { " (pid \($0))" } ?? ""
            Console.fail("\(path) is held by a feedcrawl run or shard\(pid); merge when they have finished", status: .locked, json: options.ux.json)
        } catch let error as ShardMerge.NothingToMerge {
            Console.fail("\(error)", status: .usage, json: options.ux.json)
        } catch {
            // OUT (a folder or a store) could not be read, written or reached: the merge failed.
            Console.fail("\(error)", status: .itemsFailed, json: options.ux.json)
        }
        var status: ExitStatus = report.complete ? .success : .itemsFailed
        if report.storageProblem != nil { status = .itemsFailed }
        var lines: [String] = report.problems.map { "feedcrawl: \($0)" }
        if let problem = report.storageProblem { lines.append("feedcrawl: error: \(problem)") }
        if let path = options.metricsFile {
            do {
                try MetricsFile.merge(
                    report, exitStatus: Int(status.rawValue), previous: path, version: BuildInfo.version
                ).write(to: path)
            } catch {
                lines.append("feedcrawl: warning: cannot write the metrics file: \(error)")
                if status == .success { status = .itemsFailed }  // what was asked for is missing
            }
        }
        if var push = options.metricsPushTarget() {
            push.shard = nil  // the merge's group is the job's own, whatever --shard says
            let metrics = MetricsFile.merge(
                report, exitStatus: Int(status.rawValue), previous: options.metricsFile, version: BuildInfo.version)
            do {
                try await push.push(metrics, exitStatus: Int(status.rawValue))
            } catch {
                lines.append("feedcrawl: error: cannot push the metrics: \(error)")
                if status == .success { status = .itemsFailed }  // what was asked for is missing
            }
        }
        let counts = ItemStatus.allCases.compactMap { s in report.counts.items[s].map { "\($0) \(s.rawValue)" } }
        let summary = "feedcrawl: merged \(report.shards) shards\(report.complete ? "" : " (incomplete)"): "
            + "\(report.counts.itemCount) items (\(counts.joined(separator: ", "))); "
            + "evicted \(report.evictedFiles) files, removed \(report.orphansRemoved) orphans -> \(report.manifestPath)"
        for line in lines { Console.err(TerminalText.sanitize(line)) }
        if options.ux.json {
            Console.out(summaryJSON(report, status: status))
        } else if !(options.ux.quiet && status == .success) {
            Console.err(TerminalText.sanitize(summary))
        }
        exit(status.rawValue)
    }

    private static func summaryJSON(_ report: ShardMerge.Report, status: ExitStatus) -> String {
        var json = "{\"complete\":\(report.complete),\"shards\":\(report.shards),\"items\":\(report.counts.itemCount)"
        json += ",\"counts\":{" + ItemStatus.allCases.compactMap { s in
            report.counts.items[s].map { "\"\(s.rawValue)\":\($0)" }
        }.joined(separator: ",") + "}"
        let problems = report.problems.map(JSONText.quoted).joined(separator: ",")
        json += ",\"problems\":[\(problems)],\"evicted\":\(report.evictedFiles),\"orphansRemoved\":\(report.orphansRemoved)"
        json += ",\"exitStatus\":\(status.rawValue)}"
        return json
    }
}
