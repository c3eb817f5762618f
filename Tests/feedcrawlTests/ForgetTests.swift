import DemoFeed
import FeedCrawlKit
import Foundation
import Testing
import FeedCrawlSupport

/// `feedcrawl forget` through the binary on the built-in demo feed: a crawl of 3 pages, then one
/// of 2, so the most recent run did not list the third pages' items (what a feed dropped).
@Suite("feedcrawl forget", .serialized)
struct ForgetTests {
    /// Every file under `out` with its bytes' SHA-256 (what "nothing changed" compares).
    static func snapshot(_ out: String) throws -> [String: String] {
        var files: [String: String] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: out) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: out + "/" + path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[path] = SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: out + "/" + path))))
        }
        return files
    }

    /// An archive whose most recent run listed pages 1 and 2 of each demo source, not page 3.
    static func crawled() async throws -> (out: String, dropped: [ManifestItem], kept: [ManifestItem]) {
        let out = BinaryRunner.temporaryDirectory()
        for pages in ["3", "2"] {
            let run = try await BinaryRunner.run(["--pages", pages, "--per-page", "5", "--out", out])
            #expect(run.status == 0, "stderr: \(run.stderr)")
        }
        let items = await OutputCheck.items(out: out) ?? []
        return (out, items.filter { $0.page == 3 }, items.filter { $0.page != 3 })
    }

    @Test func aDryRunNamesTheDroppedItemsAndChangesNothingThenTheyAndOnlyTheirImagesGo() async throws {
        try await BinaryTestGate.run {
            let (out, dropped, kept) = try await Self.crawled()
            defer { try? FileManager.default.removeItem(atPath: out) }
            try #require(!dropped.isEmpty && !kept.isEmpty)
            let before = try Self.snapshot(out)

            let dry = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s", "--dry-run", "--json"])
            #expect(dry.status == 0, "stderr: \(dry.stderr)")
            let plan = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])
            #expect(plan["items"] as? Int == dropped.count, "\(dry.stdout)")
            #expect(plan["dryRun"] as? Bool == true)
            #expect(try Self.snapshot(out) == before, "a dry run changes no byte under OUT")

            // More than --max-delete allows: refused, nothing changed.
            let refused = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s", "--max-delete", "1"])
            #expect(refused.status == 1 && refused.stderr.contains("refused"), "stderr: \(refused.stderr)")
            let share = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s", "--max-delete", "1%"])
            #expect(share.status == 1, "stderr: \(share.stderr)")
            #expect(try Self.snapshot(out) == before, "a refused forget changes no byte under OUT")

            let forget = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s", "--max-delete", "50%"])
            #expect(forget.status == 0, "stderr: \(forget.stderr)")
            #expect(forget.stderr.contains("forgot \(dropped.count) items"), "stderr: \(forget.stderr)")
            let after = await OutputCheck.items(out: out) ?? []
            #expect(Set(after.map { "\($0.source)/\($0.id)" }) == Set(kept.map { "\($0.source)/\($0.id)" }))
            // The dropped items' images are gone, unless a kept item names the same file.
            let keptFiles = Set(kept.flatMap { $0.images.compactMap(\.file) })
            for file in Set(dropped.flatMap { $0.images.compactMap(\.file) }) {
                #expect(FileManager.default.fileExists(atPath: out + "/" + file) == keptFiles.contains(file), "\(file)")
            }
            for file in keptFiles { #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(file)") }
            let verify = try await BinaryRunner.run(["manifest", "--verify", "--out", out])
            #expect(verify.status == 0 && verify.stdout.contains("no problems"), "\(verify.stdout)\(verify.stderr)")
            #expect(OutputCheck.leftovers(out: out).isEmpty, "\(OutputCheck.leftovers(out: out))")
            // The sheet follows: no page-3 sheet page, no dropped item's title on the sheet.
            let sheets = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("index") && $0.hasSuffix(".html") }
            #expect(!sheets.contains { $0.contains("-p3") }, "\(sheets)")
            // The sheet and `feedcrawl manifest` say what the forget took out.
            let index = (try? String(contentsOfFile: out + "/index.html", encoding: .utf8)) ?? ""
            #expect(index.contains("Last forget") && index.contains("(--not-listed-for 0s): \(dropped.count) items"), "\(index.prefix(3000))")
            let summary = try await BinaryRunner.run(["manifest", "--out", out])
            #expect(summary.stdout.contains("Last forget: ") && summary.stdout.contains("--not-listed-for 0s"), "\(summary.stdout)")
            // Again: nothing left to forget, and nothing is written.
            let settled = try Self.snapshot(out)
            let again = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s", "--json"])
            #expect(again.status == 0 && again.stdout.contains("\"items\":0"), "\(again.stdout)\(again.stderr)")
            #expect(try Self.snapshot(out) == settled, "a forget that finds nothing writes nothing")
            // The next crawl of 3 pages lists them again, and fetches their images again.
            let rerun = try await BinaryRunner.run(["--pages", "3", "--per-page", "5", "--out", out])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect((await OutputCheck.items(out: out) ?? []).count == kept.count + dropped.count)
        }
    }

    @Test func filtersCombineAndASourceTheArchiveDoesNotHoldIsAUsageError() async throws {
        try await BinaryTestGate.run {
            let (out, dropped, _) = try await Self.crawled()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let pixabay = dropped.filter { $0.source == "pixabay" }
            let dry = try await BinaryRunner.run(
                ["forget", "--out", out, "--not-listed-for", "0s", "--source", "pixabay", "--dry-run", "--json"])
            #expect(dry.stdout.contains("\"items\":\(pixabay.count)"), "\(dry.stdout)\(dry.stderr)")
            // A status reads only the groups whose counts hold it.
            let noImage = (await OutputCheck.items(out: out) ?? []).filter { $0.status == .noImage }
            try #require(!noImage.isEmpty)
            let statusRun = try await BinaryRunner.run(["forget", "--out", out, "--status", "no-image", "--dry-run", "--json"])
            #expect(statusRun.stdout.contains("\"items\":\(noImage.count)"), "\(statusRun.stdout)\(statusRun.stderr)")
            let one = try #require(pixabay.first)
            let byID = try await BinaryRunner.run(["forget", "--out", out, "--source", "pixabay", "--id", one.id, "--json"])
            #expect(byID.status == 0 && byID.stdout.contains("\"items\":1"), "\(byID.stdout)\(byID.stderr)")
            let items = await OutputCheck.items(out: out) ?? []
            #expect(!items.contains { $0.source == "pixabay" && $0.id == one.id })
            #expect(items.filter { $0.page == 3 }.count == dropped.count - 1, "the others on its page stay")
            let verify = try await BinaryRunner.run(["manifest", "--verify", "--out", out])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

            let unknown = try await BinaryRunner.run(["forget", "--out", out, "--source", "flowers"])
            #expect(unknown.status == 2 && unknown.stderr.contains("its sources: launches, pixabay"), "\(unknown.stderr)")
            let none = try await BinaryRunner.run(["forget", "--out", out])
            #expect(none.status == 2 && none.stderr.contains("needs a filter"), "\(none.stderr)")
            let bad = try await BinaryRunner.run(["forget", "--out", out, "--status", "failed", "--max-delete", "lots"])
            #expect(bad.status == 2, "\(bad.stderr)")
        }
    }

    /// A forget killed at random moments: the archive always verifies, a record never names a
    /// missing image, and the next forget finishes the job.
    @Test func aForgetKilledAtAnyMomentLeavesAnArchiveThatVerifies() async throws {
        try await BinaryTestGate.run {
            var random = SystemRandomNumberGenerator()
            for round in 1...4 {
                let (out, dropped, kept) = try await Self.crawled()
                defer { try? FileManager.default.removeItem(atPath: out) }
                let delay = Double.random(in: 0.005...0.25, using: &random)
                let process = try BinaryProcess(["forget", "--out", out, "--not-listed-for", "0s"])
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                process.send(SIGKILL)
                _ = await process.exit()
                let context = "round \(round), killed at \(Int(delay * 1000)) ms"
                let items = await OutputCheck.items(out: out) ?? []
                for item in items {
                    for file in item.images.compactMap(\.file) {
                        #expect(FileManager.default.fileExists(atPath: out + "/" + file), "\(context): \(item.id) names \(file)")
                    }
                }
                let forget = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s"])
                #expect(forget.status == 0, "\(context): \(forget.stderr)")
                let after = await OutputCheck.items(out: out) ?? []
                #expect(after.count == kept.count, "\(context): \(after.count) items, \(kept.count) kept, \(dropped.count) dropped")
                let verify = try await BinaryRunner.run(["manifest", "--verify", "--out", out])
                #expect(verify.status == 0 && verify.stdout.contains("no problems"), "\(context): \(verify.stdout)")
                #expect(OutputCheck.leftovers(out: out).isEmpty, "\(context): \(OutputCheck.leftovers(out: out))")
            }
        }
    }

    /// `--forget-after` on a cron run: a source that listed every page forgets what it no longer
    /// lists; a source whose listing failed forgets nothing; the summary, --json and the metrics
    /// say what went.
    @Test func forgetAfterForgetsOnlyForSourcesThatListedEveryPage() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let environment = ["PIXABAY_KEY": "forget-key"]
            func crawl(_ pages: String, pixabay: String, _ extra: [String] = []) async throws -> BinaryRunner.Result {
                try await BinaryRunner.run(
                    ["--pixabay-url", pixabay, "--launches-url", feed.launchesURL, "--pages", pages, "--per-page", "5",
                     "--out", out] + extra, environment: environment)
            }
            let first = try await crawl("3", pixabay: feed.pixabayURL)
            #expect(first.status == 0, "\(first.stderr)")
            let before = await OutputCheck.items(out: out) ?? []
            let third = { (source: String) in before.filter { $0.source == source && $0.page == 3 } }
            try #require(!third("pixabay").isEmpty && !third("launches").isEmpty)

            // Pixabay unreachable this time: only the launches forget what they no longer list.
            let down = try await crawl(
                "2", pixabay: "http://127.0.0.1:9/api/", ["--forget-after", "0s", "--json", "--retries", "0"])
            #expect(down.status == 3, "\(down.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(down.stdout.utf8)) as? [String: Any])
            let forgotten = summary["forgotten"] as? [String: Any]
            #expect((forgotten?["items"] as? [String: Int]) == ["launches": third("launches").count], "\(down.stdout)")
            var after = await OutputCheck.items(out: out) ?? []
            #expect(after.filter { $0.source == "launches" && $0.page == 3 }.isEmpty)
            #expect(after.filter { $0.source == "pixabay" && $0.page == 3 }.count == third("pixabay").count)

            // Both list again (pages 1-2): pixabay forgets its third page now, and says so.
            let metrics = out + "-metrics.prom"
            defer { try? FileManager.default.removeItem(atPath: metrics) }
            let both = try await crawl("2", pixabay: feed.pixabayURL, ["--forget-after", "0s", "--metrics-file", metrics])
            #expect(both.status == 0, "\(both.stderr)")
            #expect(both.stderr.contains("forgot \(third("pixabay").count) items no run listed for 0s"), "\(both.stderr)")
            let prom = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
            #expect(prom.contains("feedcrawl_run_forgotten_items{source=\"pixabay\"} \(third("pixabay").count)"), "\(prom)")
            after = await OutputCheck.items(out: out) ?? []
            #expect(after.allSatisfy { $0.page != 3 })
            let verify = try await BinaryRunner.run(["manifest", "--verify", "--out", out])
            #expect(verify.status == 0 && verify.stdout.contains("no problems"), "\(verify.stdout)")

            // --max-delete guards it: more would go than allowed, so nothing goes, and the run says so (exit 1).
            let again = try await crawl("3", pixabay: feed.pixabayURL)
            #expect(again.status == 0, "\(again.stderr)")
            let guarded = try await crawl("1", pixabay: feed.pixabayURL, ["--forget-after", "0s", "--max-delete", "1"])
            #expect(guarded.status == 1 && guarded.stderr.contains("nothing was forgotten"), "\(guarded.stderr)")
            #expect((await OutputCheck.items(out: out) ?? []).count == before.count)
        }
    }

    /// The kept feed pages of a source the configuration no longer names go at the end of the
    /// next plain run (nothing reads them again); the configured source's stay.
    /// The feed dropped a third of its items and a source was renamed in the configuration: the
    /// items under the old name and the dropped ones go, the old name's images stay (the new
    /// name's items name the same files), the dropped items' images go; the metrics file the
    /// forget is given follows.
    @Test func aRenamedSourceAndDroppedItemsGoTheirSharedImagesStay() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let config = out + "-config.json"
            defer { try? FileManager.default.removeItem(atPath: config) }
            func crawl(name: String, pages: Int) async throws {
                try Data(#"{"perPage": 5, "sources": [{"type": "pixabay", "name": "\#(name)", "url": "\#(feed.pixabayURL)", "pages": \#(pages)}]}"#.utf8)
                    .write(to: URL(fileURLWithPath: config))
                let run = try await BinaryRunner.run(["--config", config, "--out", out], environment: ["PIXABAY_KEY": "rename-key"])
                #expect(run.status == 0, "\(run.stderr)")
            }
            try await crawl(name: "flowers", pages: 3)
            try await crawl(name: "blooms", pages: 2)
            let items = await OutputCheck.items(out: out) ?? []
            let old = items.filter { $0.source == "flowers" }, new = items.filter { $0.source == "blooms" }
            try #require(old.count == 15 && new.count == 10, "\(old.count) flowers, \(new.count) blooms")
            let dry = try await BinaryRunner.run(["forget", "--out", out, "--not-listed-for", "0s", "--dry-run", "--json"])
            #expect(dry.stdout.contains("\"items\":15"), "\(dry.stdout)\(dry.stderr)")
            let metrics = out + "-forget.prom"
            defer { try? FileManager.default.removeItem(atPath: metrics) }
            let forget = try await BinaryRunner.run(
                ["forget", "--out", out, "--not-listed-for", "0s", "--metrics-file", metrics, "--json"])
            #expect(forget.status == 0, "\(forget.stderr)")
            let after = await OutputCheck.items(out: out) ?? []
            #expect(Set(after.map { "\($0.source)/\($0.id)" }) == Set(new.map { "\($0.source)/\($0.id)" }))
            let shared = Set(new.flatMap { $0.images.compactMap(\.file) })
            for file in Set(old.flatMap { $0.images.compactMap(\.file) }) {
                #expect(FileManager.default.fileExists(atPath: out + "/" + file) == shared.contains(file), "\(file)")
            }
            let verify = try await BinaryRunner.run(["manifest", "--verify", "--out", out])
            #expect(verify.status == 0 && verify.stdout.contains("no problems"), "\(verify.stdout)\(verify.stderr)")
            let prom = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
            #expect(prom.contains("feedcrawl_run_forgotten_items{source=\"flowers\"} 15"), "\(prom)")
            #expect(prom.contains("feedcrawl_run_forgotten_items{source=\"blooms\"} 0"), "\(prom)")
            #expect(prom.contains("feedcrawl_manifest_items{source=\"blooms\",status=\"fresh\"} 10"), "\(prom)")
            #expect(!prom.contains("source=\"flowers\",status="), "\(prom)")
        }
    }

    @Test func keptPagesOfASourceNoLongerConfiguredGo() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let environment = ["PIXABAY_KEY": "pages-key"]
            let both = try await BinaryRunner.run(
                ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2", "--per-page", "5",
                 "--page-ttl", "1h", "--out", out], environment: environment)
            #expect(both.status == 0, "\(both.stderr)")
            let kept = { (source: String) in (try? FileManager.default.contentsOfDirectory(atPath: out + "/pages/" + source)) ?? [] }
            try #require(!kept("pixabay").isEmpty && !kept("launches").isEmpty)
            let one = try await BinaryRunner.run(
                ["--launches-url", feed.launchesURL, "--pages", "2", "--page-ttl", "1h", "--out", out], environment: environment)
            #expect(one.status == 0, "\(one.stderr)")
            #expect(kept("pixabay").isEmpty, "\(kept("pixabay"))")
            #expect(!kept("launches").isEmpty)
            #expect(one.stderr.contains("removed \(2) kept feed pages of sources this run is not configured with"), "\(one.stderr)")
        }
    }
}
