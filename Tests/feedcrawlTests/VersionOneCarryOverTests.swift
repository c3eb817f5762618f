import FeedCrawlKit
import Foundation
import Testing

/// An output folder written by an earlier release (version 1: one image per item,
/// `details.largePatch*`) converted to the archive format 3 when first read, by `feedcrawl
/// manifest` or by a new run of the built-in demo feed (which caches its images under a port-free
/// name, so it finds the old files): exit 0, the old manifest kept as `manifest.v1.json`, an
/// export that says what the old files said, nothing fetched again within the TTL, every old file
/// kept where the old manifest put it, `--verify` clean, no journal left.
@Suite("feedcrawl version-1 carry-over")
struct VersionOneCarryOverTests {
    /// The fixtures' images were fetched when they were made: a long TTL keeps them fresh.
    static let crawl = ["--pages", "1", "--per-page", "3", "--ttl", "3650d", "--json"]

    @Test(arguments: [VersionOneFixture.details, .killed])
    func theManifestCommandReadsAVersionOneFolder(_ fixture: VersionOneFixture) async throws {
        try await BinaryTestGate.run {
            let out = try fixture.copy()
            defer { out.remove() }
            let before = out.snapshot()
            let expected = try fixture.images()
            let imageCount = expected.values.reduce(0) { $0 + $1.count }
            #expect(expected.count == 23)

            // The first reading converts the folder, as the next run would, and says so (and
            // that it took the killed run's journal in).
            let summary = try await BinaryProcess.run(["manifest", "--out", out.path])
            #expect(summary.status == 0, "stderr: \(summary.stderr)")
            #expect(summary.stdout.contains("launches") && summary.stdout.contains("pixabay"))
            #expect(summary.stdout.contains("Cache: \(Set(expected.values.joined().map(\.file)).count) files"), "\(summary.stdout)")
            #expect(summary.stderr.contains("converted the version-1 manifest"), "\(summary.stderr)")
            #expect(summary.stderr.contains("journal") == fixture.hasJournal, "\(summary.stderr)")
            let converted = out.snapshot()
            // The old manifest is kept as it was, the old journal is gone (its items are in the
            // archive), the cache is untouched.
            #expect(FileManager.default.contents(atPath: out.path + "/manifest.v1.json")
                == FileManager.default.contents(atPath: fixture.path + "/manifest.json"))
            #expect(!FileManager.default.fileExists(atPath: out.path + "/manifest.journal"))
            #expect(converted.filter { $0.key.hasPrefix("cache/") } == before.filter { $0.key.hasPrefix("cache/") })
            #expect(try Output.json(out.path + "/manifest.json")["format"] as? String == "feedcrawl-archive")
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")

            let json = try await BinaryProcess.run(["manifest", "--out", out.path, "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["items"] as? Int == 23)

            // The listing, as version-2 items: the old image under its variant, the large patch as `large`.
            let listing = try await BinaryProcess.run(
                ["manifest", "--out", out.path, "--source", "pixabay", "--source", "launches", "--format", "json"])
            #expect(listing.status == 0, "stderr: \(listing.stderr)")
            let items = try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(listing.stdout.utf8))
            #expect(items.count == 23)
            for item in items {
                let want = try #require(expected["\(item.source)/\(item.id)"])
                let got = item.images.map {
                    VersionOneFixture.Image(variant: $0.variant, url: $0.url, file: $0.file ?? "", sha256: $0.sha256 ?? "")
                }
                #expect(got == want, "\(item.source)/\(item.id)")
                #expect(item.details?.rocketName == nil || item.source == "launches")
            }
            #expect(items.contains { $0.image("large") != nil })

            let csv = try await BinaryProcess.run(
                ["manifest", "--out", out.path, "--source", "pixabay", "--source", "launches", "--format", "csv"])
            let rows = CSVRows.parse(csv.stdout)
            let noImage = expected.values.filter(\.isEmpty).count
            #expect(rows.count == 1 + imageCount + noImage)
            #expect(Set(rows.dropFirst().filter { !$0[5].isEmpty }.map { "\($0[0])/\($0[1])/\($0[5])/\($0[7])" })
                == Set(expected.flatMap { key, images in images.map { "\(key)/\($0.variant)/\($0.file)" } }))

            let verify = try await BinaryProcess.run(["manifest", "--out", out.path, "--verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("no problems"))
            // Reading the converted archive changed nothing.
            #expect(out.snapshot() == converted)
        }
    }

    @Test(arguments: CrawlCheckpoint.allCases)
    func aCarryOverKilledAtTheEndLosesNothing(at checkpoint: CrawlCheckpoint) async throws {
        try await BinaryTestGate.run {
            let fixture = VersionOneFixture.killed
            let out = try fixture.copy()
            defer { out.remove() }
            let old = try fixture.images()
            let arguments = Self.crawl + ["--details", "--out", out.path]
            let killed = try await BinaryProcess.run(
                arguments, environment: ["FEEDCRAWL_QUIET": "1", "FEEDCRAWL_TEST_KILL_AT": checkpoint.rawValue])
            #expect(killed.signaled && killed.status == SIGKILL, "stderr: \(killed.stderr)")
            // Whatever the killed run left is consistent: the old files, the converted archive
            // (committed before the crawl), and the run's journal files that match them.
            #expect(out.hasUnnamedJournal == (checkpoint == .outcomesJournaled))
            #expect(FileManager.default.fileExists(atPath: out.path + "/manifest.v1.json"))
            let problems = await OutputCheck.problems(out: out.path)
            #expect(problems.isEmpty, "\(problems.prefix(5))")
            let verify = try await BinaryProcess.run(["manifest", "--out", out.path, "--verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

            let rerun = try await BinaryProcess.run(arguments, environment: ["FEEDCRAWL_QUIET": "1"])
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let counts = (try Output.jsonLine(rerun.stdout))["counts"] as? [String: Int]
            #expect(counts?["fresh"] == 21 && counts?["downloaded"] == 0, "\(counts ?? [:])")
            let manifest = try await out.manifest()
            #expect(manifest.version == 2)
            for item in manifest.items {
                #expect(item.images.map(\.file) == (old["\(item.source)/\(item.id)"] ?? []).map(\.file), "\(item.id)")
                #expect(item.images.allSatisfy { $0.status == .fresh })
            }
            #expect(OutputCheck.leftovers(out: out.path).isEmpty)
            #expect(out.cacheFiles() == manifest.files)
        }
    }

    /// The runs over each fixture: their options, and the patch sizes they ask for. The large
    /// patch comes from the details query (`--details`) or from the listing (`--launch-images`).
    static let runs: [(VersionOneFixture, [String], [String])] = [
        (.details, ["--details"], ["small", "large"]),
        (.details, ["--launch-images", "large"], ["large"]),
        (.killed, [], ["small"]),
        (.killed, ["--details"], ["small", "large"]),
    ]

    @Test(arguments: runs)
    func aNewRunCarriesAVersionOneFolderOver(_ fixture: VersionOneFixture, options: [String], patches: [String]) async throws {
        try await BinaryTestGate.run {
            let out = try fixture.copy()
            defer { out.remove() }
            let old = try fixture.images()
            let details = options.contains("--details")
            let result = try await BinaryProcess.run(
                Self.crawl + options + ["--out", out.path], environment: ["FEEDCRAWL_QUIET": "1"])
            #expect(result.status == 0, "stderr: \(result.stderr)")

            // Nothing was fetched: every image was found fresh.
            let summary = try Output.jsonLine(result.stdout)
            let counts = try #require(summary["counts"] as? [String: Int])
            #expect(counts["downloaded"] == 0 && counts["revalidated"] == 0 && counts["failed"] == 0, "\(counts)")
            #expect(counts["fresh"] == 21 && counts["no-image"] == 2, "\(counts)")
            #expect(summary["bytes"] as? Int == 0)

            let export = try await ArchiveExport.read(out.path)
            #expect(OutputCheck.layoutProblems(export.text).isEmpty, "\(OutputCheck.layoutProblems(export.text).prefix(3))")
            let manifest = export.manifest
            #expect(manifest.version == 2)
            #expect(manifest.run?.bytes == 0)
            #expect(manifest.run?.images?.keys.sorted() == ["fresh"])
            #expect(manifest.items.count == 23)
            for item in manifest.items {
                let key = "\(item.source)/\(item.id)"
                // The variants this run asked for, each from the old files.
                let want = (old[key] ?? []).filter { item.source == "pixabay" || patches.contains($0.variant) }
                let got = item.images.map {
                    VersionOneFixture.Image(variant: $0.variant, url: "", file: $0.file ?? "", sha256: $0.sha256 ?? "")
                }
                #expect(got == want.map { VersionOneFixture.Image(variant: $0.variant, url: "", file: $0.file, sha256: $0.sha256) },
                        "\(key)")
                #expect(item.images.allSatisfy { $0.status == .fresh }, "\(key)")
                if details, item.source == "launches" { #expect(item.details?.rocketName != nil, "\(key)") }
            }
            #expect(manifest.images.contains { $0.image.variant == "large" } == patches.contains("large"))
            #expect(manifest.images.contains { $0.image.variant == "small" } == patches.contains("small"))

            #expect(OutputCheck.problems(manifest, out: out.path).isEmpty, "\(OutputCheck.problems(manifest, out: out.path).prefix(5))")
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")
            #expect(FileManager.default.contents(atPath: out.path + "/manifest.v1.json")
                == FileManager.default.contents(atPath: fixture.path + "/manifest.json"))
            #expect(!FileManager.default.fileExists(atPath: out.path + "/manifest.journal"))
            #expect(out.cacheFiles() == manifest.files)
            let verify = try await BinaryProcess.run(["manifest", "--out", out.path, "--verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("no problems"))

            // The next run reads its own archive the same way (nothing is converted again).
            let again = try await BinaryProcess.run(
                Self.crawl + options + ["--out", out.path], environment: ["FEEDCRAWL_QUIET": "1"])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect((try Output.jsonLine(again.stdout))["counts"] as? [String: Int] == counts)
            // Each run lists the images under its own demo server's port: all but the URL stays.
            func withoutURLs(_ manifest: Manifest) -> [[ImageRecord]] {
                manifest.items.map { $0.images.map { image in var image = image; image.url = ""; return image } }
            }
            #expect(withoutURLs(try await out.manifest()) == withoutURLs(manifest))
        }
    }
}
