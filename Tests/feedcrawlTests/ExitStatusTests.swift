import DemoFeed
import Foundation
import Glibc
import Testing

extension BinaryTests {
    /// The binary's exit statuses and what it prints for each, against a DemoFeed started here.
    @Suite("feedcrawl exit statuses")
    struct ExitStatusTests {
        static func crawl(_ feed: DemoFeedServer, out: String, key: String = "demo-key", _ extra: [String] = []) async throws -> BinaryRunner.Result {
            try await BinaryRunner.run(
                ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2", "--per-page", "10",
                 "--out", out] + extra,
                environment: ["PIXABAY_KEY": key])
        }

        @Test func successIsZeroWithSummaryOnStderrOnly() async throws {
            let feed = try DemoFeedServer(options: .small())
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let result = try await Self.crawl(feed, out: out)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.isEmpty)
            let counts = try await Output.manifestRunCounts(out)
            let total = counts.values.reduce(0, +)
            #expect(total == 30)   // 2 pages of 10 hits, 10 launches on one page
            let last = try #require(Output.lines(result.stderr).last)
            #expect(last.hasPrefix("feedcrawl: \(total) items: \(counts["downloaded"] ?? -1) downloaded"))
            #expect(result.stderr.contains("feedcrawl: pixabay: page 1: 10 items"))
            #expect(result.stderr.contains("feedcrawl: launches: page 1: 10 items"))
            #expect(!Output.hasControlCharacters(result.stderr))
        }

        @Test func someImagesFailingIsOne() async throws {
            var options = DemoFeedOptions.small()
            options.override = { request in
                request.path.hasPrefix("/img/preview/") && request.path.hasSuffix("3.jpg")
                    ? .text("gone", status: 404) : nil
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let result = try await Self.crawl(feed, out: out, ["--retries", "0"])
            #expect(result.status == 1, "stderr: \(result.stderr)")
            let failed = try await Output.manifestItems(out).filter { $0["status"] as? String == "failed" }
            #expect(!failed.isEmpty)
            // The error is the image's: the item's own `error` is only for an unusable listing.
            for item in failed {
                #expect(item["error"] == nil)
                let images = item["images"] as? [[String: Any]] ?? []
                #expect(images.count == 1)
                #expect(images.first?["status"] as? String == "failed")
                #expect(images.first?["error"] as? String == "HTTP 404")
                #expect(images.first?["file"] == nil)
                #expect((images.first?["url"] as? String)?.hasSuffix("3.jpg") == true)
            }
            #expect(result.stderr.contains("\(failed.count) failed"))
            #expect(result.stdout.isEmpty)
        }

        @Test func rejectedKeyIsThreeAndTheKeyIsNeverShown() async throws {
            var options = DemoFeedOptions.small()
            options.apiKey = "the-right-key"
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            let secret = "wrong-key-7f3a9c"
            let result = try await Self.crawl(feed, out: out, key: secret, ["--verbose", "--log-file", out + "/log.txt"])
            #expect(result.status == 3, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("pixabay: error: the API rejected the key"))
            // The summary line names the source that failed (issue 27, point 9).
            #expect(result.stderr.contains("; 1 source failed (pixabay); "), "stderr: \(result.stderr)")
            // No file under OUT holds it (the log, the archive's root, segments and tables, the
            // contact sheet), nor the archive read whole.
            let export = try await ArchiveExport.read(out)
            for text in [result.stderr, result.stdout, export.text] {
                #expect(!text.contains(secret))
            }
            var scanned = 0
            for (path, data) in SourcesEndToEndTests.files(out) {
                scanned += 1
                #expect(!String(decoding: data, as: UTF8.self).contains(secret), "\(path)")
            }
            #expect(scanned > 5)
            // The other source still ran.
            #expect(try export.jsonItems().contains { $0["source"] as? String == "launches" })
        }

        @Test func usageErrorIsTwoBeforeAnything() async throws {
            let out = BinaryRunner.temporaryDirectory() + "/never"
            for arguments in [["--progress", "sometimes"], ["--log-format", "xml"], ["--pages"], ["--quiet", "--bogus"]] {
                let result = try await BinaryRunner.run(arguments + ["--out", out])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix("feedcrawl: error: "))
                #expect(result.stdout.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: out))
        }

        @Test func heldLockIsSeventyFiveAndChangesNothing() async throws {
            let out = BinaryRunner.temporaryDirectory()
            // Hold OUT/.lock the way another run would: flock(2) on it, from this process.
            let fd = open(out + "/.lock", O_RDWR | O_CREAT, 0o644)
            #expect(fd >= 0)
            defer { close(fd) }
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
            let result = try await BinaryRunner.run(["--pages", "1", "--out", out, "--json"])
            #expect(result.status == 75, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("is held by another feedcrawl run; nothing was changed"))
            let line = try Output.jsonLine(result.stdout)
            #expect(line["exitStatus"] as? Int == 75)
            #expect(!FileManager.default.fileExists(atPath: out + "/manifest.json"))
            #expect(!FileManager.default.fileExists(atPath: out + "/index.html"))

            // --quiet still reports a failure.
            let quiet = try await BinaryRunner.run(["--pages", "1", "--out", out, "--quiet"])
            #expect(quiet.status == 75)
            #expect(quiet.stderr.contains("held by another feedcrawl run"))
        }
    }
}
