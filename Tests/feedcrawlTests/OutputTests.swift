import DemoFeed
import Foundation
import Testing

extension BinaryTests {
    /// What the binary prints: --json, --quiet, logs, progress, and never an escape code on a pipe.
    @Suite("feedcrawl output")
    struct OutputTests {
        static func sourceArguments(_ feed: DemoFeedServer, out: String) -> [String] {
            ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2", "--per-page", "10", "--out", out]
        }

        @Test func jsonSummaryIsTheOnlyStdoutAndMatchesTheManifest() async throws {
            var options = DemoFeedOptions.small()
            options.override = { $0.path.hasSuffix("7.jpg") ? .text("no", status: 410) : nil }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let result = try await BinaryRunner.run(Self.sourceArguments(feed, out: out) + ["--json", "--retries", "0"],
                                              environment: ["PIXABAY_KEY": "k"])
            #expect(Output.lines(result.stdout).count == 1)
            let summary = try Output.jsonLine(result.stdout)
            let manifest = try await ArchiveExport.read(out).json()
            let run = try #require(manifest["run"] as? [String: Any])
            let manifestCounts = try #require(run["counts"] as? [String: Int])
            let counts = try #require(summary["counts"] as? [String: Int])
            for (status, count) in counts { #expect(count == manifestCounts[status] ?? 0, "\(status)") }
            #expect(counts["failed"] ?? 0 > 0)
            // The run's image counts are those of the images in the manifest (all listed by this run).
            let images = (manifest["items"] as? [[String: Any]] ?? []).flatMap { $0["images"] as? [[String: Any]] ?? [] }
            let imageCounts = Dictionary(grouping: images) { $0["status"] as? String ?? "?" }.mapValues(\.count)
            #expect(run["images"] as? [String: Int] == imageCounts)
            #expect(imageCounts["failed"] == counts["failed"])   // one image per item here
            #expect(summary["items"] as? Int == manifestCounts.values.reduce(0, +))
            #expect(summary["bytes"] as? Int == run["bytes"] as? Int)
            #expect(summary["exitStatus"] as? Int == Int(result.status))
            #expect(result.status == 1)
            #expect((summary["seconds"] as? Double ?? -1) >= 0)
            let sources = try #require(summary["sources"] as? [[String: Any]])
            let runSources = try #require(run["sources"] as? [[String: Any]])
            #expect(sources.map { $0["name"] as? String } == runSources.map { $0["source"] as? String })
            #expect(sources.map { $0["pages"] as? Int } == runSources.map { $0["pages"] as? Int })
            let perSource = sources.reduce(0) { $0 + (($1["counts"] as? [String: Int])?.values.reduce(0, +) ?? 0) }
            #expect(perSource == summary["items"] as? Int)
            #expect(summary["contactSheet"] as? String == out + "/index.html")
        }

        @Test func quietIsSilentOnSuccessAndSpeaksOnFailure() async throws {
            let feed = try DemoFeedServer(options: .small())
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let ok = try await BinaryRunner.run(Self.sourceArguments(feed, out: out) + ["--quiet"], environment: ["PIXABAY_KEY": "k"])
            #expect(ok.status == 0)
            #expect(ok.stdout.isEmpty)
            #expect(ok.stderr.isEmpty)

            // The same through the environment, with the demo feed: under --quiet (cron), a run
            // with no feed has likely lost its --config; one warning says so (issue 35).
            let demo = try await BinaryRunner.run(["--pages", "1", "--per-page", "5", "--out", BinaryRunner.temporaryDirectory()],
                                            environment: ["FEEDCRAWL_QUIET": "1"])
            #expect(demo.status == 0)
            #expect(Output.lines(demo.stderr).count == 1, "\(demo.stderr)")
            #expect(demo.stderr.hasPrefix("feedcrawl: warning: no feed configured: crawling the built-in demo feed (made-up data)"))
            #expect(demo.stderr.contains("lost its --config"))

            var failing = DemoFeedOptions.small()
            failing.override = { $0.path.hasPrefix("/graphql") ? .text("down", status: 503) : nil }
            let broken = try DemoFeedServer(options: failing)
            defer { broken.stop() }
            let bad = try await BinaryRunner.run(Self.sourceArguments(broken, out: BinaryRunner.temporaryDirectory()) + ["--quiet", "--retries", "0"],
                                           environment: ["PIXABAY_KEY": "k"])
            #expect(bad.status == 3)
            let lines = Output.lines(bad.stderr)
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.hasPrefix("feedcrawl: launches: error:") == true)
            #expect(lines.last?.hasPrefix("feedcrawl: 20 items:") == true)
            #expect(!bad.stderr.contains("page 1"))
        }

        @Test func feedTextCannotReachTheTerminalOrThePage() async throws {
            final class Base: @unchecked Sendable { var url = "" }
            let base = Base()
            var options = DemoFeedOptions.small()
            options.override = { request in
                guard request.path == "/api/" else { return nil }
                let page = """
                    {"total":2,"totalHits":2,"hits":[
                     {"id":1,"tags":"\\u001b[31mred\\u001b[0m <script>alert(1)</script>","user":"\\u001b]0;pwned\\u0007evil",
                      "previewURL":"\(base.url)/img/preview/100000.jpg"},
                     {"id":2,"tags":"bell\\u0007 & <b>bold</b>","user":"x","previewURL":"\(base.url)/img/preview/\\u001b[2J.jpg"}]}
                    """
                return .json(Array(page.utf8))
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            base.url = feed.baseURL
            let out = BinaryRunner.temporaryDirectory()
            let arguments = ["--pixabay-url", feed.pixabayURL, "--pages", "1", "--out", out, "--verbose", "--progress", "auto"]
            let text = try await BinaryRunner.run(arguments, environment: ["PIXABAY_KEY": "k"])
            #expect(text.status <= 1, "stderr: \(text.stderr)")
            #expect(text.stderr.contains("image downloaded"))
            #expect(!Output.hasControlCharacters(text.stderr))
            #expect(!text.stderr.contains("\u{1B}"))

            let json = try await BinaryRunner.run(arguments + ["--log-format", "json"], environment: ["PIXABAY_KEY": "k"])
            #expect(!json.stderr.contains("\u{1B}") && !json.stderr.contains("\u{07}"))
            for line in Output.lines(json.stderr) {
                let record = try Output.jsonLine(line)
                #expect(record["timestamp"] is String && record["level"] is String && record["event"] is String)
                #expect(record["fields"] is [String: Any])
            }

            let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
            #expect(!html.contains("\u{1B}") && !html.contains("\u{07}"))
            #expect(!html.contains("<script>alert"))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(html.contains("&lt;b&gt;bold&lt;/b&gt;"))
        }

        /// Issue 27, point 9: a JSON image event names its item: source, id and variant.
        @Test func jsonImageEventsNameTheirItem() async throws {
            let feed = try DemoFeedServer(options: DemoFeedOptions.small())
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let run = try await BinaryRunner.run(
                ["--pixabay-url", feed.pixabayURL, "--pages", "1", "--out", out, "--verbose", "--progress", "never",
                 "--log-format", "json"], environment: ["PIXABAY_KEY": "k"])
            #expect(run.status <= 1, "\(run.stderr)")
            let images = try Output.lines(run.stderr).map(Output.jsonLine).filter { $0["event"] as? String == "image" }
            #expect(!images.isEmpty)
            for record in images {
                let fields = try #require(record["fields"] as? [String: Any])
                #expect(record["source"] as? String == "pixabay", "\(record)")
                #expect((fields["id"] as? String)?.isEmpty == false, "\(record)")
                #expect(fields["variant"] as? String == "preview", "\(record)")
                // A downloaded image's dimensions, as the text line gives them (issue 35).
                if fields["status"] as? String == "downloaded" {
                    #expect((fields["width"] as? Int ?? 0) > 0 && (fields["height"] as? Int ?? 0) > 0, "\(record)")
                }
            }
            #expect(images.contains { ($0["fields"] as? [String: Any])?["status"] as? String == "downloaded" })
        }

        @Test func pipedStderrGetsPageLinesAndTimedProgressLines() async throws {
            var options = DemoFeedOptions.small()
            options.latencyMs = 120
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let result = try await BinaryRunner.run(
                Self.sourceArguments(feed, out: out) + ["--progress-interval", "0.2s", "--log-format", "json"],
                environment: ["PIXABAY_KEY": "k"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let records = try Output.lines(result.stderr).map(Output.jsonLine)
            let events = records.compactMap { $0["event"] as? String }
            #expect(events.filter { $0 == "page" }.count == 3)     // pixabay 2, launches 1
            #expect(events.contains("progress"))                    // the run takes > 0.5 s
            #expect(events.last == "summary")
            let progress = try #require(records.first { $0["event"] as? String == "progress" })
            let fields = try #require(progress["fields"] as? [String: Any])
            #expect(fields["done"] is Int && fields["queued"] is Int && fields["bytes"] is Int)
            #expect(!result.stderr.contains("\u{1B}"))
            let summary = try #require(records.last?["fields"] as? [String: Any])
            #expect(summary["exitStatus"] as? Int == 0)
        }

        @Test func progressAlwaysDrawsTheLiveDisplayEvenOnAPipe() async throws {
            var options = DemoFeedOptions.small()
            options.latencyMs = 150
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let result = try await BinaryRunner.run(
                Self.sourceArguments(feed, out: BinaryRunner.temporaryDirectory()) + ["--progress", "always"],
                environment: ["PIXABAY_KEY": "k", "COLUMNS": "100"])
            #expect(result.status == 0)
            #expect(result.stderr.contains("\u{1B}[2K"))              // drawn and erased in place, line by line
            #expect(!result.stderr.contains("\u{1B}[J"))              // never cleared to the end of the screen
            #expect(result.stderr.contains("items "))
            #expect(!result.stderr.contains("page 1: 10 items"))      // page lines stay under the display
            // The display is erased (each line, then the cursor back up) right before the summary.
            let last = try #require(Output.lines(result.stderr).last)
            #expect(last.range(of: "\u{1B}\\[2K\u{1B}\\[[0-9]+Afeedcrawl: 30 items", options: .regularExpression) != nil,
                    "\(last.debugDescription)")
        }

        @Test func logFileIsAppendedWithTimestampsAndStderrKeepsTheSummary() async throws {
            let feed = try DemoFeedServer(options: .small())
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let log = out + "/feedcrawl.log"
            for _ in 0..<2 {
                let result = try await BinaryRunner.run(Self.sourceArguments(feed, out: out) + ["--log-file", log],
                                                  environment: ["PIXABAY_KEY": "k"])
                #expect(result.status == 0)
                #expect(Output.lines(result.stderr).count == 1)
                #expect(result.stderr.hasPrefix("feedcrawl: 30 items"))
            }
            let lines = Output.lines(try String(contentsOfFile: log, encoding: .utf8))
            #expect(lines.filter { $0.contains(" info feedcrawl: pixabay: page 1: 10 items") }.count == 2)
            #expect(lines.filter { $0.contains("feedcrawl: 30 items") }.count == 2)
            #expect(lines.allSatisfy { $0.first?.isNumber == true && $0.contains("Z ") })   // ISO time first
        }

        /// Run by root in a folder the service user owns, the log file root creates (or found
        /// owned by root) goes to the folder's owner: the service's next run can still append.
        @Test func aLogFileRootCreatesGoesToItsFoldersOwner() async throws {
            try #require(geteuid() == 0, "needs root (CI runs as root)")
            let feed = try DemoFeedServer(options: .small())
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let logs = out + "-logs"
            defer { try? FileManager.default.removeItem(atPath: logs) }
            #expect(mkdir(logs, 0o755) == 0 && chown(logs, 65534, 65534) == 0)
            let log = logs + "/feedcrawl.log"
            let result = try await BinaryRunner.run(Self.sourceArguments(feed, out: out) + ["--log-file", log],
                                                    environment: ["PIXABAY_KEY": "k"])
            #expect(result.status == 0, "\(result.stderr)")
            var info = stat()
            #expect(stat(log, &info) == 0 && info.st_uid == 65534 && info.st_gid == 65534, "owner \(info.st_uid):\(info.st_gid)")
            // A log file root owns already (left by an earlier release) is given back too.
            #expect(chown(log, 0, 0) == 0)
            _ = try await BinaryRunner.run(Self.sourceArguments(feed, out: out) + ["--log-file", log], environment: ["PIXABAY_KEY": "k"])
            #expect(stat(log, &info) == 0 && info.st_uid == 65534, "owner \(info.st_uid)")
        }
    }
}
