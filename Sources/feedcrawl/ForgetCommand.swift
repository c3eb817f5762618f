import FeedCrawlKit
import FoundationEssentials
import Glibc
import FeedCrawlSupport

/// `feedcrawl forget [options]`: takes out of OUT's archive the items that meet every filter
/// given, then the images nothing else names (`Forget`).
enum ForgetCommand {
    struct Options {
        /// `--out`, `--config` and `--s3-endpoint`, and OUT as they resolve.
        var location = ArchiveLocation()
        var rule = Forget.Rule()
        var dryRun = false
        var limit: ItemLimit?
        var json = false
        /// `--metrics-file`: where to write the forget's metrics (nil: none).
        var metricsFile: String?
        var help = false
    }

    static func run(_ arguments: [String]) async -> Never {
        let help = "feedcrawl forget"
        let options = Console.orUsageError(help: help) {
            var options = try ArgumentList.read(arguments, command: .forget, into: Options())
            if !options.help { try options.location.locate(environment: ProcessInfo.processInfo.environment) }
            return options
        }
        if options.help {
            HelpText.show(HelpText.forget)
            exit(0)
        }
        if options.rule.isEmpty {
            Console.usageError("forget needs a filter (--not-listed-for, --source, --status or --id); it never forgets "
                + "everything", help: help)
        }
        var forget = Forget(outDirectory: options.location.outDirectory, rule: options.rule)
        forget.dryRun = options.dryRun
        forget.limit = options.limit
        forget.objectStore = ManifestCommand.objectStore(out: options.location.outDirectory, endpoint: options.location.s3Endpoint, help: help)
        let report: Forget.Report
        do {
            report = try await forget.run()
        } catch Crawler.SetupError.leaseHeld(let message) {
            Console.fail(message, status: .locked, json: options.json)
        } catch Crawler.SetupError.locked(let path) {
            Console.fail("\(path) is held by a feedcrawl run or shard; forget when it has finished", status: .locked, json: options.json)
        } catch Crawler.SetupError.damagedManifest(let damage) {
            Console.fail(damage.description, status: .damagedManifest, json: options.json)
        } catch let error as Forget.NoArchive {
            Console.fail(error.description, status: .usage, json: options.json)
        } catch {
            Console.fail("\(error)", status: .itemsFailed, json: options.json)
        }
        let unknown = options.rule.sources.subtracting(report.sources).sorted()
        if !unknown.isEmpty {
            Console.fail("no source \(unknown.map { "'\($0)'" }.joined(separator: ", ")) in this archive; its sources: "
                + (report.sources.isEmpty ? "none" : report.sources.joined(separator: ", ")), status: .usage, json: options.json)
        }
        var status: ExitStatus = report.refused == nil && report.storageProblem == nil ? .success : .itemsFailed
        if report.storageProblem != nil { status = .itemsFailed }
        if let path = options.metricsFile, !report.dryRun {
            do {
                try MetricsFile.forget(report, exitStatus: Int(status.rawValue), previous: path, version: BuildInfo.version)
                    .write(to: path)
            } catch {
                Console.err("feedcrawl: warning: cannot write the metrics file: \(TerminalText.sanitize("\(error)"))")
                if status == .success { status = .itemsFailed }  // what was asked for is missing
            }
        }
        if options.json {
            Console.out(summaryJSON(report, status: status))
        } else {
            for line in lines(report) { Console.err(TerminalText.sanitize(line)) }
        }
        exit(status.rawValue)
    }

    /// What people read (stderr): what went (or would go), or why nothing did.
    static func lines(_ report: Forget.Report) -> [String] {
        let count = report.itemCount
        let items = "\(count) item\(count == 1 ? "" : "s")"
        let bySource = ForgetRecord.bySource(report.items)
        let files = "\(report.files) file\(report.files == 1 ? "" : "s"), \(ByteSize.format(report.bytes))"
        var lines: [String] = []
        if let refused = report.refused {
            lines.append("feedcrawl: error: forget refused: \(refused); nothing was changed")
        } else if report.dryRun {
            lines.append("feedcrawl: forget --dry-run: would forget \(items)\(count > 0 ? " (\(bySource))" : "") and remove \(files); nothing was changed")
        } else {
            lines.append("feedcrawl: forgot \(items)\(count > 0 ? " (\(bySource))" : "") and removed \(files) -> \(report.manifestPath)")
        }
        if !report.sample.isEmpty {
            lines.append("feedcrawl:   e.g. " + report.sample.joined(separator: ", ") + (count > report.sample.count ? ", …" : ""))
        }
        if report.leftoversRemoved > 0 {
            lines.append("feedcrawl: removed \(report.leftoversRemoved) files an unfinished run or forget left")
        }
        if let problem = report.storageProblem { lines.append("feedcrawl: error: \(problem)") }
        return lines
    }

    static func summaryJSON(_ report: Forget.Report, status: ExitStatus) -> String {
        let bySource = report.items.sorted { $0.key < $1.key }.map { "\(JSONText.quoted($0.key)):\($0.value)" }.joined(separator: ",")
        var json = "{\"dryRun\":\(report.dryRun),\"items\":\(report.itemCount),\"bySource\":{\(bySource)}"
        json += ",\"files\":\(report.files),\"bytes\":\(report.bytes),\"archiveItems\":\(report.archiveItems)"
        json += ",\"sample\":[" + report.sample.map(JSONText.quoted).joined(separator: ",") + "]"
        json += ",\"refused\":" + (report.refused.map(JSONText.quoted) ?? "null")
        json += ",\"leftoversRemoved\":\(report.leftoversRemoved)"
        json += ",\"storageProblem\":" + (report.storageProblem.map(JSONText.quoted) ?? "null")
        return json + ",\"exitStatus\":\(status.rawValue)}"
    }
}
