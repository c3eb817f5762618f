import DemoFeed
import Foundation
import Glibc
import Testing

extension BinaryTests {
    /// Messages that tell the operator what to do, as the binary prints them (issue 19, point 5).
    @Suite("feedcrawl messages")
    struct MessagesTests {
        @Test func aDamagedManifestIsSixtyFiveNamesTheFileAndTheWayBack() async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let path = out + "/manifest.json"
            // A header that parses and an item that does not.
            let damaged = #"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"a"}]}"#
            try damaged.write(toFile: path, atomically: true, encoding: .utf8)
            let crawl = try await BinaryRunner.run(["--pages", "1", "--out", out, "--json"])
            #expect(crawl.status == 65, "stderr: \(crawl.stderr)")
            #expect(crawl.stderr.contains("\(path) is damaged ("))
            #expect(crawl.stderr.contains("Lost: the record of earlier runs"))
            #expect(crawl.stderr.contains("mv \(path) \(path).damaged"))
            #expect(try Output.jsonLine(crawl.stdout)["exitStatus"] as? Int == 65)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == damaged)
            // `manifest` says the same, with the same status.
            let inspect = try await BinaryRunner.run(["manifest", "--out", out])
            #expect(inspect.status == 65, "stderr: \(inspect.stderr)")
            #expect(inspect.stderr.contains("mv \(path) \(path).damaged"))
            // Following the advice works.
            #expect(rename(path, path + ".damaged") == 0)
            let again = try await BinaryRunner.run(["--pages", "1", "--out", out])
            #expect(again.status == 0, "stderr: \(again.stderr)")
        }

        /// Issue 27, point 5: a misspelt option or command gets the closest valid one; a missing
        /// value names the option that lacks it; a value given to an on/off option says so.
        @Test func mistakesGetTheClosestValidWord() async throws {
            let cases: [([String], String)] = [
                (["--page", "2"], "unknown option '--page'; did you mean '--pages'?"),
                (["manifets"], "unknown command 'manifets'; did you mean 'manifest'?"),
                (["--out", "--pages", "2"], "--out needs a value, but the next word is the option --pages"),
                (["--json=true"], "--json takes no value, not 'true' (write --json to turn it on, --no-json to turn it off)"),
                (["--pages"], "--pages needs a value"),
                (["manifest", "--stauts", "failed"], "unknown option '--stauts' for 'feedcrawl manifest'; did you mean '--status'?"),
                (["manifest", "mrege"], "unknown command 'mrege'; did you mean 'merge'?"),
                (["demo-feed", "--hit", "3"], "unknown option '--hit' for 'feedcrawl demo-feed'; did you mean '--hits'?"),
                (["help", "manifst"], "no help topic 'manifst'; did you mean 'manifest'?"),
                (["completion", "bsh"], "did you mean 'bash'?"),
                (["--pages", "2", "stray"], "unexpected word 'stray' for 'feedcrawl'"),
            ]
            for (arguments, message) in cases {
                let result = try await BinaryRunner.run(arguments)
                #expect(result.status == 2, "\(arguments)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            // A log file that cannot be opened and a CA file that is not there: the log is a
            // run failure (1, not a usage error), the CA file is checked before the run (2).
            let out = BinaryRunner.temporaryDirectory() + "/o"
            let log = try await BinaryRunner.run(["--pages", "1", "--out", out, "--log-file", "/proc/nope/log", "--json"])
            #expect(log.status == 1, "\(log.stderr)")
            #expect(log.stderr.contains("cannot create the log file's folder"), "\(log.stderr)")
            #expect(!log.stderr.contains("for usage"), "\(log.stderr)")
            #expect(log.stdout.contains(#""exitStatus":1"#), "\(log.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out + "/manifest.json"), "nothing was crawled")
            let cacert = try await BinaryRunner.run(["--pages", "1", "--out", out, "--cacert", "/nonexistent/ca.pem"])
            #expect(cacert.status == 2)
            #expect(cacert.stderr.contains("--cacert: cannot read the CA file '/nonexistent/ca.pem': No such file or directory"),
                    "\(cacert.stderr)")
            // OUT is made when missing, but not its parent (a disk that is not mounted): exit 1.
            let orphan = BinaryRunner.temporaryDirectory() + "/not-mounted/feeds"
            let unmounted = try await BinaryRunner.run(["--pages", "1", "--out", orphan])
            #expect(unmounted.status == 1, "\(unmounted.stderr)")
            #expect(unmounted.stderr.contains("its parent folder"), "\(unmounted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: orphan))
            // A value that starts with - is still possible, written with =.
            let dashed = try await BinaryRunner.run(["config", "--print", "--out=" + BinaryRunner.temporaryDirectory() + "/-odd"])
            #expect(dashed.status == 0, "\(dashed.stderr)")
        }

        @Test func helpWithAnUnknownTopicIsAUsageError() async throws {
            let result = try await BinaryRunner.run(["help", "bogus"])
            #expect(result.status == 2)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("no help topic 'bogus'; the topics are config, demo-feed, forget, manifest, merge"))
            let main = try await BinaryRunner.run(["help"])
            #expect(main.status == 0)
            #expect(main.stdout.contains("EXIT STATUS:"))
            #expect(main.stdout.contains("65       OUT/manifest.json (the archive's root) is damaged"))
        }

        @Test func failuresRetriesAndFeedErrorsSayWhereAndWhatNext() async throws {
            var options = DemoFeedOptions.small()
            options.override = { request in
                if request.path.hasPrefix("/img/preview/") && request.path.hasSuffix("3.jpg") {
                    return .text("busy", status: 503)
                }
                if request.path.hasPrefix("/api"), request.query["page"] == "2" { return .text("gone", status: 404) }
                return nil
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = try await BinaryRunner.run(
                ["--pixabay-url", feed.pixabayURL, "--pages", "2", "--per-page", "10", "--out", out,
                 "--retries", "1", "--log-format", "json", "--progress", "never"],
                environment: ["PIXABAY_KEY": "demo-key"])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            let records = Output.lines(result.stderr).compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
            let retries = records.filter { $0["event"] as? String == "retry" }
            #expect(!retries.isEmpty)
            #expect(retries.allSatisfy { $0["source"] as? String == "pixabay" }, "\(retries)")
            // The lost page names its URL, without the key.
            #expect(result.stderr.contains("(from \(feed.pixabayURL)?"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("demo-key"))
            // The summary says how to list the failures.
            let summary = try #require(records.last { $0["event"] as? String == "summary" })
            #expect((summary["message"] as? String)?.hasSuffix(
                "; list them: feedcrawl manifest --out \(out) --status failed,rejected") == true, "\(summary)")
        }

        @Test func logAndMetricsFilesGetTheirFolderCreated() async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let result = try await BinaryRunner.run(
                ["--pages", "1", "--out", out, "--quiet", "--log-file", out + "/logs/a/run.log",
                 "--metrics-file", out + "/metrics/b/feedcrawl.prom"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            // Only the demo feed's warning under --quiet (a scheduled run that lost its --config).
            #expect(Output.lines(result.stderr).count == 1 && result.stderr.contains("no feed configured"), "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: out + "/logs/a/run.log"))
            #expect(FileManager.default.fileExists(atPath: out + "/metrics/b/feedcrawl.prom"))
        }

        @Test(arguments: ["log", "metrics", "sheet"])
        func quietNeverHidesAFileThatCouldNotBeWritten(what: String) async throws {
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            var arguments = ["--pages", "1", "--out", out, "--quiet"]
            let expected: String
            switch what {
            case "log":
                arguments += ["--log-file", "/dev/full"]  // opens, but every write fails (ENOSPC)
                expected = "cannot write the log file /dev/full"
            case "metrics":
                // A regular file where a folder should be: fails even for root.
                try "x".write(toFile: out + "/plain", atomically: true, encoding: .utf8)
                arguments += ["--metrics-file", out + "/plain/feedcrawl.prom"]
                expected = "cannot write the metrics file"
            default:
                // A non-empty folder where index.html goes.
                try FileManager.default.createDirectory(atPath: out + "/index.html", withIntermediateDirectories: true)
                try "x".write(toFile: out + "/index.html/keep", atomically: true, encoding: .utf8)
                expected = "cannot write the contact sheet"
            }
            let result = try await BinaryRunner.run(arguments)
            #expect(result.status == 1, "\(what): stderr: \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(what): stderr: \(result.stderr)")
        }
    }
}

extension InterruptionTests {
    /// `manifest` and a second crawl while a run holds OUT, then after that run was killed.
    @Test func manifestDuringARunSaysInProgressOnceAndTheLockGivesThePID() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            // Before any run.
            let before = try await BinaryProcess.run(["manifest", "--out", out.path])
            #expect(before.status == 2)
            #expect(before.stderr.contains("no archive at"), "stderr: \(before.stderr)")
            // The first run, parked after journaling its outcomes, before committing its archive.
            let running = try BinaryProcess(
                feed.arguments(out: out.path),
                environment: feed.environment.merging(["FEEDCRAWL_TEST_PAUSE_AT": "outcomes-journaled"]) { $1 })
            #expect(await waitUntil { running.stderrSoFar.contains("paused at") })
            let during = try await BinaryProcess.run(["manifest", "--out", out.path])
            #expect(during.status == 0, "stderr: \(during.stderr)")
            #expect(during.stderr.components(separatedBy: "note:").count == 2, "stderr: \(during.stderr)")
            #expect(during.stderr.contains("a run is in progress (pid \(running.pid))"), "stderr: \(during.stderr)")
            #expect(!during.stderr.contains("unfinished"))
            #expect(during.stdout.contains("none yet: no run has finished"), "stdout: \(during.stdout)")
            #expect(!during.stdout.contains("1970"))
            let second = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(second.status == 75)
            #expect(second.stderr.contains("held by another feedcrawl run; nothing was changed. It is pid \(running.pid)"),
                    "stderr: \(second.stderr)")
            // Killed: the journal files are an unfinished run's, no longer one in progress.
            running.send(SIGKILL)
            _ = await running.exit()
            let after = try await BinaryProcess.run(["manifest", "--out", out.path])
            #expect(after.stderr.contains("journal of an unfinished run"), "stderr: \(after.stderr)")
            #expect(!after.stderr.contains("in progress"))
        }
    }
}
