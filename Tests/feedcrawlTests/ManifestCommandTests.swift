import FeedCrawlKit
import Foundation
import Testing
import FeedCrawlSupport

/// `feedcrawl manifest`: summary, listings in four formats, `export`, --verify, --repair, errors.
@Suite("feedcrawl manifest")
struct ManifestCommandTests {
    /// A finished crawl of both sources (40 + 40 items) into a fresh folder.
    func crawled() async throws -> (SlowFeed, OutputFolder) {
        let feed = try SlowFeed(slow: false)
        let out = OutputFolder()
        let crawl = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
        #expect(crawl.status == 0, "stderr: \(crawl.stderr)")
        return (feed, out)
    }

    func manifest(_ arguments: [String]) async throws -> BinaryProcess.Exit {
        try await BinaryProcess.run(["manifest"] + arguments)
    }

    /// Issue 35: on an installed server `feedcrawl manifest` and `forget` find OUT as the crawl
    /// does: FEEDCRAWL_OUT, the configuration's `out` (--config, FEEDCRAWL_CONFIG); --out wins.
    @Test func manifestAndForgetFindOUTAsTheCrawlDoes() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }
            let expected = try await manifest(["--out", out.path])
            #expect(expected.status == 0)
            let config = BinaryRunner.temporaryDirectory() + "/feedcrawl.json"
            defer { try? FileManager.default.removeItem(atPath: config) }
            try Data("{\"out\": \"\(out.path)\"}".utf8).write(to: URL(fileURLWithPath: config))

            let byConfig = try await manifest(["--config", config])
            #expect(byConfig.status == 0, "\(byConfig.stderr)")
            #expect(byConfig.stdout == expected.stdout)
            let byConfigVariable = try await BinaryProcess.run(["manifest"], environment: ["FEEDCRAWL_CONFIG": config])
            #expect(byConfigVariable.stdout == expected.stdout, "\(byConfigVariable.stderr)")
            let byOutVariable = try await BinaryProcess.run(["manifest", "export"], environment: ["FEEDCRAWL_OUT": out.path])
            #expect(byOutVariable.status == 0, "\(byOutVariable.stderr)")
            #expect(byOutVariable.stdout.contains("\"items\""))
            let forget = try await BinaryProcess.run(
                ["forget", "--config", config, "--status", "failed", "--dry-run"], environment: [:])
            #expect(forget.status == 0, "\(forget.stderr)")
            // --out wins over both.
            let elsewhere = try await BinaryProcess.run(
                ["manifest", "--out", out.path + "-none"], environment: ["FEEDCRAWL_OUT": out.path, "FEEDCRAWL_CONFIG": config])
            #expect(elsewhere.status == 2)
            #expect(elsewhere.stderr.contains("no archive at \(out.path)-none"), "\(elsewhere.stderr)")
            // A configuration that is not valid is a usage error naming the file.
            try Data("{\"outt\": \"x\"}".utf8).write(to: URL(fileURLWithPath: config))
            let bad = try await manifest(["--config", config])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains(config), "\(bad.stderr)")
        }
    }

    @Test func summaryListingsAndFormats() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }

            let summary = try await manifest(["--out", out.path])
            #expect(summary.status == 0)
            #expect(summary.stderr.isEmpty)
            #expect(summary.stdout.contains("launches"))
            #expect(summary.stdout.contains("pixabay"))
            #expect(summary.stdout.contains("Last run:"))
            #expect(summary.stdout.contains("Cache: "))

            let json = try await manifest(["--out", out.path, "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["items"] as? Int == 80)
            let totals = try #require(object["totals"] as? [String: Any])
            let counts = try #require(totals["counts"] as? [String: Int])
            let stored = try await out.manifest()
            #expect(stored.version == 2)
            let storedCounts = Dictionary(grouping: stored.items, by: \.status.rawValue).mapValues(\.count)
            #expect(counts == storedCounts)
            #expect(totals["total"] as? Int == 80)
            #expect(object["files"] as? Int == stored.files.count)

            let listing = try await manifest(["--out", out.path, "--source", "pixabay", "--status", "downloaded"])
            #expect(listing.status == 0)
            let lines = listing.stdout.split(separator: "\n")
            #expect(lines.count == 41)  // header + 40 items
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("pixabay") && $0.contains("downloaded") && $0.contains("cache/") })

            // An item without images still gets one row, its image columns empty.
            let csv = try await manifest(["--out", out.path, "--status", "no-image", "--format", "csv"])
            let rows = csv.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(rows.first == "source,id,page,status,title,variant,imageStatus,file,bytes,width,height,sha256,error,url")
            let noImage = stored.items.filter { $0.status == .noImage }
            #expect(!noImage.isEmpty)
            #expect(rows.count == 1 + noImage.count)
            #expect(rows.dropFirst().allSatisfy { $0.hasPrefix("launches,") && $0.contains(",no-image,") && $0.hasSuffix(",,,,,,,,,") })

            let listingJSON = try await manifest(["--out", out.path, "--status=failed,rejected", "--format=json"])
            #expect(listingJSON.status == 0, "stderr: \(listingJSON.stderr)")
            #expect(listingJSON.stdout == "[]\n")
            let decoded = try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(listingJSON.stdout.utf8))
            #expect(decoded.isEmpty)
        }
    }

    /// Issue 27, point 6: one item by id, filters by variant, error text, page and last-seen
    /// time, every source at once, a URL column, and an unknown source named with the ones the
    /// archive holds.
    @Test func filtersForRealArchives() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }
            let stored = try await out.manifest()
            let some = try #require(stored.items.first { $0.source == "pixabay" && !$0.images.isEmpty })

            let one = try await manifest(["--out", out.path, "--id", some.id, "--format", "json"])
            #expect(one.status == 0, "\(one.stderr)")
            let decoded = try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(one.stdout.utf8))
            #expect(decoded.map(\.id) == [some.id])
            // An id the archive does not hold: status 1, named, so a script can tell.
            let missing = try await manifest(["--out", out.path, "--id", some.id, "--id", "nosuch-id"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("no item with id 'nosuch-id' in this archive"), "\(missing.stderr)")
            #expect(missing.stdout.contains(some.id))

            let all = try await manifest(["--out", out.path, "--all"])
            #expect(all.stdout.split(separator: "\n").count == 1 + stored.items.count)
            #expect(all.stdout.split(separator: "\n").first?.hasSuffix("url") == true)
            #expect(all.stdout.contains(try #require(some.images.first?.url)))

            let variant = try #require(some.images.first?.variant)
            let byVariant = try await manifest(["--out", out.path, "--variant", variant, "--format", "json"])
            let withVariant = try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(byVariant.stdout.utf8))
            #expect(withVariant.count == stored.items.filter { $0.images.contains { $0.variant == variant } }.count)

            let page2 = try await manifest(["--out", out.path, "--page", "2", "--format", "json"])
            let onPage2 = try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(page2.stdout.utf8))
            #expect(!onPage2.isEmpty && onPage2.allSatisfy { $0.page == 2 })
            #expect(onPage2.count == stored.items.filter { $0.page == 2 }.count)

            let recent = try await manifest(["--out", out.path, "--seen-since", "1h", "--format", "csv"])
            #expect(recent.status == 0)
            let old = try await manifest(["--out", out.path, "--seen-before", "2000-01-01"])
            #expect(old.stdout == "No matching items.\n")
            let errors = try await manifest(["--out", out.path, "--error", "no such error text"])
            #expect(errors.stdout == "No matching items.\n")

            let unknown = try await manifest(["--out", out.path, "--source", "nosuch"])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("no source 'nosuch' in this archive; its sources: launches, pixabay"), "\(unknown.stderr)")
            for bad in [["--page", "x"], ["--seen-since", "yesterday"], ["--verify", "--id", "1"]] {
                let refused = try await manifest(["--out", out.path] + bad)
                #expect(refused.status == 2, "\(bad)")
            }
        }
    }

    /// `export` (the whole archive as one version-2 document) and `--format ndjson` (one item a
    /// line, each as a version-2 manifest holds it) say the same of every item; reading changes
    /// nothing, and reads the same twice.
    @Test func exportAndNDJSONListings() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }
            let before = out.snapshot()
            let export = try await ArchiveExport.read(out.path)
            #expect(export.stderr.isEmpty, "\(export.stderr)")
            #expect(OutputCheck.layoutProblems(export.text).isEmpty, "\(OutputCheck.layoutProblems(export.text).prefix(3))")
            let stored = export.manifest
            #expect(stored.version == 2)
            #expect(stored.items.count == 80)
            #expect(Set(stored.items.map(\.key)).count == 80)
            // The run record is the last run's, its counts those of the items it listed (all of them).
            let run = try #require(try export.json()["run"] as? [String: Any])
            let counts = try #require(run["counts"] as? [String: Int])
            #expect(counts == Dictionary(grouping: stored.items, by: \.status.rawValue).mapValues(\.count))
            #expect(OutputCheck.problems(stored, out: out.path).isEmpty)
            #expect(out.cacheFiles() == stored.files)

            let all = try await manifest(["--out", out.path, "--all", "--format", "ndjson"])
            #expect(all.status == 0, "\(all.stderr)")
            let lines = Output.lines(all.stdout)
            #expect(lines.count == 80)
            let listed = try lines.map { try ItemJSON.decode(Array($0.utf8)) }
            #expect(listed == stored.items)
            // Each line is the item's line in the export.
            let exported = Set(Output.lines(export.text).filter { $0.hasPrefix("    {") }.map { line -> String in
                let body = line.dropFirst(4)
                return String(body.hasSuffix(",") ? body.dropLast() : body)
            })
            #expect(Set(lines) == exported)
            let narrowed = try await manifest(["--out", out.path, "--source", "pixabay", "--format", "ndjson"])
            #expect(Output.lines(narrowed.stdout).count == 40)
            #expect(Output.lines(narrowed.stdout).allSatisfy { $0.hasPrefix(#"{"source":"pixabay","#) })
            // The summary is one line.
            let summary = try await manifest(["--out", out.path, "--format", "ndjson"])
            #expect(Output.lines(summary.stdout).count == 1)
            #expect(try Output.jsonLine(summary.stdout)["items"] as? Int == 80)

            // Reading changed nothing; a second export is the same document.
            #expect(try await ArchiveExport.read(out.path).text == export.text)
            #expect(out.snapshot() == before)
            // export takes no filter.
            let refused = try await manifest(["export", "--status", "failed", "--out", out.path])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("unknown option '--status' for 'feedcrawl manifest export'"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty)
        }
    }

    @Test func verifyFindsCorruptMissingAndOrphanedFiles() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }
            let clean = try await manifest(["--out", out.path, "--verify"])
            #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
            #expect(clean.stdout.contains("no problems"))

            let files = try await out.manifest().files.sorted()
            let corrupt = out.path + "/" + files[0]
            var bytes = try Data(contentsOf: URL(fileURLWithPath: corrupt))
            bytes[bytes.count - 1] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: corrupt))
            let missing = files.last { $0 != files[0] } ?? files[0]
            try FileManager.default.removeItem(atPath: out.path + "/" + missing)
            let orphan = "cache/00/" + String(repeating: "0", count: 64) + ".jpg"
            try FileManager.default.createDirectory(atPath: out.path + "/cache/00", withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: out.path + "/" + orphan))

            let result = try await manifest(["--out", out.path, "--verify"])
            #expect(result.status == 1)
            #expect(result.stdout.contains("corrupt") && result.stdout.contains(files[0]))
            #expect(result.stdout.contains("missing") && result.stdout.contains(missing))
            #expect(result.stdout.contains("orphaned") && result.stdout.contains(orphan))
            let json = try await manifest(["--out", out.path, "--verify", "--json"])
            #expect(json.status == 1)
            let decoded = try ManifestCoding.decoder().decode(CacheVerification.self, from: Data(json.stdout.utf8))
            #expect(decoded.count(.corrupt) == 1 && decoded.count(.missing) == 1 && decoded.count(.orphaned) == 1)

            // A crawl within the TTL settles its unchanged pages without looking at their files
            // (docs/repository.md): the three problems stay.
            let settled = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(settled.status == 0, "stderr: \(settled.stderr)")
            let still = try await manifest(["--out", out.path, "--verify"]).stdout
            #expect(still.contains("1 corrupt") && still.contains("1 missing") && still.contains("1 orphaned"), "\(still)")
            // --repair removes the corrupt file and the orphan, and marks the pages that named
            // what is gone now; the next crawl fetches exactly those two images again.
            let repaired = try await manifest(["--out", out.path, "--verify", "--repair"])
            #expect(repaired.status == 1)
            #expect(repaired.stdout.contains("Repair: removed 2 files; the next run fetches their images again, "
                + "and those of 1 missing file."), "\(repaired.stdout)")
            #expect(!FileManager.default.fileExists(atPath: corrupt))
            #expect(!FileManager.default.fileExists(atPath: out.path + "/" + orphan))
            #expect(try await manifest(["--out", out.path, "--verify"]).stdout.contains("2 missing."))
            let before = feed.images
            let refetch = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(refetch.status == 0, "stderr: \(refetch.stderr)")
            #expect(feed.images - before == 2)
            let after = try await manifest(["--out", out.path, "--verify"])
            #expect(after.status == 0, "\(after.stdout)")
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")
        }
    }

    /// An archive written by a release that stored cut images as whole: the manifest's size and
    /// hash match the file, but the file is not a whole image. `--verify` says so, `--repair`
    /// removes it, and the next crawl fetches it again.
    @Test func verifyFindsIncompleteImagesAndRepairRemovesThem() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }
            let export = try await ArchiveExport.read(out.path)
            let file = try #require(export.manifest.files.sorted().first { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") })
            let path = out.path + "/" + file
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            let cut = whole.prefix(whole.count / 2)
            try cut.write(to: URL(fileURLWithPath: path))
            // What the earlier release would have left: its version-2 manifest (the archive as
            // exported, recording the cut file's size and hash) and no archive/ folder. Read
            // first, it is converted to format 3 as the next run would.
            let manifestURL = URL(fileURLWithPath: out.path + "/manifest.json")
            var root = try export.json()
            var items = try #require(root["items"] as? [[String: Any]])
            for i in items.indices {
                guard var images = items[i]["images"] as? [[String: Any]] else { continue }
                for j in images.indices where images[j]["file"] as? String == file {
                    images[j]["bytes"] = cut.count
                    images[j]["sha256"] = SHA256.hex(Array(cut))
                }
                items[i]["images"] = images
            }
            root["items"] = items
            try FileManager.default.removeItem(atPath: out.path + "/archive")
            try JSONSerialization.data(withJSONObject: root).write(to: manifestURL)

            let found = try await manifest(["--out", out.path, "--verify"])
            #expect(found.status == 1)
            #expect(found.stdout.contains("incomplete") && found.stdout.contains(file), "\(found.stdout)")
            #expect(found.stdout.contains("truncated"), "\(found.stdout)")
            #expect(found.stdout.contains("1 incomplete."))

            // The off forms turn a flag off: `--no-repair` removes nothing, `--no-verify` verifies nothing.
            let kept = try await manifest(["--out", out.path, "--verify", "--repair", "--no-repair"])
            #expect(kept.status == 1 && !kept.stdout.contains("Repair:"), "\(kept.stdout)")
            #expect(FileManager.default.fileExists(atPath: path))
            let unverified = try await manifest(["--out", out.path, "--verify", "--no-verify"])
            #expect(!unverified.stdout.contains("incomplete"), "\(unverified.stdout)")

            let repaired = try await manifest(["--out", out.path, "--verify", "--repair"])
            #expect(repaired.status == 1)
            #expect(repaired.stdout.contains("Repair: removed 1 file; the next run fetches their images again."))
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(try await manifest(["--out", out.path, "--verify"]).stdout.contains("1 missing."))

            let rerun = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let after = try await manifest(["--out", out.path, "--verify"])
            #expect(after.status == 0, "\(after.stdout)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == whole)

            let usage = try await manifest(["--out", out.path, "--repair"])
            #expect(usage.status == 2)
            #expect(usage.stderr.contains("--repair goes with --verify"))
        }
    }

    @Test func verifyRefusesWhileACrawlHoldsTheLock() async throws {
        try await BinaryTestGate.run {
            let (feed, out) = try await crawled()
            defer { feed.stop(); out.remove() }
            let lock = try RunLock(outDirectory: out.path)
            let result = try await manifest(["--out", out.path, "--verify"])
            lock.release()
            #expect(result.status == 75)
            #expect(result.stderr.contains("a feedcrawl run is using"))
            // Reading does not need the lock.
            let summary = try await manifest(["--out", out.path])
            #expect(summary.status == 0)
        }
    }

    @Test func helpUsageErrorsAndAMissingManifest() async throws {
        try await BinaryTestGate.run {
            let help = try await manifest(["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("--verify"))
            #expect(help.stdout.contains("EXAMPLES"))
            let badStatus = try await manifest(["--status", "broken"])
            #expect(badStatus.status == 2)
            #expect(badStatus.stderr.contains("unknown status 'broken'"))
            let badFormat = try await manifest(["--format", "xml"])
            #expect(badFormat.status == 2)
            let both = try await manifest(["--verify", "--status", "failed"])
            #expect(both.status == 2)
            let missing = try await manifest(["--out", "/nonexistent/feedcrawl-test"])
            #expect(missing.status == 2, "\(missing.stderr)")
            #expect(missing.stderr.contains("no archive at /nonexistent/feedcrawl-test/manifest.json"), "\(missing.stderr)")
            #expect(missing.stdout.isEmpty)
            // Reading never makes OUT (nor anything in it).
            #expect(!FileManager.default.fileExists(atPath: "/nonexistent/feedcrawl-test"))
            let empty = OutputFolder()
            defer { empty.remove() }
            for arguments in [[], ["export"], ["--all"], ["--verify"]] {
                let none = try await manifest(arguments + ["--out", empty.path])
                #expect(none.status == 2, "\(arguments): \(none.stderr)")
                #expect(none.stderr.contains("no archive at \(empty.path)/manifest.json"), "\(arguments): \(none.stderr)")
                #expect(none.stdout.isEmpty, "\(arguments)")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: empty.path)
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test func feedTextIsSanitizedForTheTerminal() async throws {
        try await BinaryTestGate.run {
            let out = OutputFolder()
            defer { out.remove() }
            let evil = "Sunset\u{1B}]0;owned\u{07}\u{1B}[2J over the sea\u{202E}"
            let item = ManifestItem(
                source: "pixabay", id: "1", page: 1, title: evil, author: "user\u{1B}[5m",
                images: [ImageRecord(variant: "preview", url: "http://x/1\u{1B}[2J.jpg", status: .failed, error: "HTTP 500\u{1B}[31m")])
            try ManifestStore.save(Manifest(generatedAt: Date(), items: [item]), outDirectory: out.path)
            for arguments in [["--status", "failed"], ["--status", "failed", "--format", "csv"], []] {
                let result = try await manifest(["--out", out.path] + arguments)
                #expect(result.status == 0)
                #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
            }
            let listing = try await manifest(["--out", out.path, "--status", "failed"])
            #expect(listing.stdout.contains("Sunset over the sea"))
        }
    }
}
