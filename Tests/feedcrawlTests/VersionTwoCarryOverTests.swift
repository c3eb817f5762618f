import FeedCrawlKit
import Foundation
import Testing

/// An output folder written by the release before the archive format 3 (version 2: every item
/// in `manifest.json`, a killed run's outcomes in `manifest.journal`) is converted when first
/// read, by `feedcrawl manifest` or by a new run of the built-in demo feed (which caches its
/// images under a port-free name, so it finds the old files): the old manifest kept as
/// `manifest.v2.json`, the old journal taken in and removed, an export that holds every item as
/// the old files held it, nothing fetched again within the TTL, every old file kept, `--verify`
/// clean, nothing temporary left.
@Suite("feedcrawl version-2 carry-over")
struct VersionTwoCarryOverTests {
    /// The fixtures' images were fetched when they were made: a long TTL keeps them fresh.
    static let crawl = ["--pages", "1", "--per-page", "3", "--ttl", "3650d", "--json"]

    @Test(arguments: [VersionTwoFixture.plain, .killed])
    func theManifestCommandConvertsAVersionTwoFolder(_ fixture: VersionTwoFixture) async throws {
        try await BinaryTestGate.run {
            let out = try fixture.copy()
            defer { out.remove() }
            let before = out.snapshot()
            let expected = try fixture.items()
            #expect(expected.count == 23)

            let summary = try await BinaryProcess.run(["manifest", "--out", out.path])
            #expect(summary.status == 0, "stderr: \(summary.stderr)")
            #expect(summary.stderr.contains("converted the version-2 manifest"), "\(summary.stderr)")
            #expect(summary.stderr.contains("journal") == fixture.hasJournal, "\(summary.stderr)")
            #expect(summary.stdout.contains("launches") && summary.stdout.contains("pixabay"))
            let files = Set(expected.flatMap { $0.images.compactMap(\.file) })
            #expect(summary.stdout.contains("Cache: \(files.count) files"), "\(summary.stdout)")

            // The old manifest kept as it was, the old journal gone, the cache untouched.
            let converted = out.snapshot()
            #expect(FileManager.default.contents(atPath: out.path + "/manifest.v2.json")
                == FileManager.default.contents(atPath: fixture.path + "/manifest.json"))
            #expect(!FileManager.default.fileExists(atPath: out.path + "/manifest.journal"))
            #expect(converted.filter { $0.key.hasPrefix("cache/") } == before.filter { $0.key.hasPrefix("cache/") })
            #expect(try Output.json(out.path + "/manifest.json")["format"] as? String == "feedcrawl-archive")
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")

            // Every item reads back as the old files held it: every field, its page and lastSeen.
            let export = try await ArchiveExport.read(out.path)
            #expect(export.stderr.isEmpty, "\(export.stderr)")
            #expect(export.manifest.items.count == expected.count)
            for (got, want) in zip(export.manifest.items, expected) {
                #expect(got == want, "\(want.source)/\(want.id)")
            }
            #expect(OutputCheck.problems(export.manifest, out: out.path).isEmpty)
            let verify = try await BinaryProcess.run(["manifest", "--out", out.path, "--verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("no problems"))
            // Reading the converted archive changed nothing.
            #expect(out.snapshot() == converted)
        }
    }

    /// The runs over each fixture: their options, and the patch sizes they ask for (every one of
    /// them in the old cache).
    static let runs: [(VersionTwoFixture, [String], [String])] = [
        (.plain, [], ["small"]),
        (.killed, [], ["small"]),
        (.killed, ["--details"], ["small", "large"]),
    ]

    @Test(arguments: runs)
    func aNewRunCarriesAVersionTwoFolderOver(_ fixture: VersionTwoFixture, options: [String], patches: [String]) async throws {
        try await BinaryTestGate.run {
            let out = try fixture.copy()
            defer { out.remove() }
            let old = Dictionary(uniqueKeysWithValues: try fixture.items().map { ("\($0.source)/\($0.id)", $0) })
            let details = options.contains("--details")
            let result = try await BinaryProcess.run(Self.crawl + options + ["--out", out.path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("converted the version-2 manifest"), "\(result.stderr)")

            // Nothing was fetched: every image was found fresh.
            let summary = try Output.jsonLine(result.stdout)
            let counts = try #require(summary["counts"] as? [String: Int])
            #expect(counts["downloaded"] == 0 && counts["revalidated"] == 0 && counts["failed"] == 0, "\(counts)")
            #expect(counts["fresh"] == 21 && counts["no-image"] == 2, "\(counts)")
            #expect(summary["bytes"] as? Int == 0)

            let export = try await ArchiveExport.read(out.path)
            #expect(OutputCheck.layoutProblems(export.text).isEmpty, "\(OutputCheck.layoutProblems(export.text).prefix(3))")
            let manifest = export.manifest
            #expect(manifest.run?.bytes == 0)
            #expect(manifest.run?.images?.keys.sorted() == ["fresh"])
            #expect(manifest.items.count == 23)
            for item in manifest.items {
                let key = "\(item.source)/\(item.id)"
                let want = (old[key]?.images ?? []).filter { item.source == "pixabay" || patches.contains($0.variant) }
                #expect(item.images.map(\.variant) == want.map(\.variant), "\(key)")
                #expect(item.images.map(\.file) == want.map(\.file), "\(key)")
                #expect(item.images.map(\.sha256) == want.map(\.sha256), "\(key)")
                #expect(item.images.allSatisfy { $0.status == .fresh }, "\(key)")
                if details, item.source == "launches" { #expect(item.details?.rocketName != nil, "\(key)") }
            }
            #expect(OutputCheck.problems(manifest, out: out.path).isEmpty, "\(OutputCheck.problems(manifest, out: out.path).prefix(5))")
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")
            #expect(FileManager.default.contents(atPath: out.path + "/manifest.v2.json")
                == FileManager.default.contents(atPath: fixture.path + "/manifest.json"))
            #expect(!FileManager.default.fileExists(atPath: out.path + "/manifest.journal"))
            #expect(out.cacheFiles() == manifest.files)
            let verify = try await BinaryProcess.run(["manifest", "--out", out.path, "--verify"])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")

            // The next run reads the archive the first one committed: nothing is converted again,
            // and it counts the same.
            let again = try await BinaryProcess.run(Self.crawl + options + ["--out", out.path])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(!again.stderr.contains("converted"), "\(again.stderr)")
            #expect((try Output.jsonLine(again.stdout))["counts"] as? [String: Int] == counts)
        }
    }
}
