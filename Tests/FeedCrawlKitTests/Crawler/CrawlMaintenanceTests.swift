import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit

/// Eviction under `cacheMaxBytes` and orphan removal, on disk.
extension CrawlerTests {
    @Suite("Crawler cache maintenance", .serialized)
    struct CrawlMaintenanceTests {
        /// Writes one cached image per entry of `ages`, with a manifest item last seen that many days
        /// ago, and a manifest listing them; returns the items.
        static func seed(_ out: TestDirectory, ages: [Double]) throws -> [ManifestItem] {
            let layout = CacheLayout(outDirectory: out.path)
            try layout.createFanOutDirectories()
            var items: [ManifestItem] = []
            for (index, age) in ages.enumerated() {
                let url = "http://old.example/\(index).png"
                let bytes = CrawlFixture.png(side: 10 + index, bytes: 1000, seed: UInt8(index))
                let relative = CacheLayout.relativePath(forURL: url, format: .png)
                try AtomicFile.write(bytes, to: layout.absolutePath(relative))
                let seen = Date(timeIntervalSinceNow: -age * 86_400)
                items.append(ManifestItem(
                    source: "old", id: String(index), page: 1, title: "old \(index)", imageURL: url, status: .downloaded,
                    file: relative, bytes: Int64(bytes.count), sha256: CrawlFixture.sha256(bytes),
                    contentType: "image/png", width: 10 + index, height: 10 + index, fetchedAt: seen, lastSeen: seen))
            }
            try ManifestStore.save(Manifest(generatedAt: Date(), items: items), outDirectory: out.path)
            return items
        }

        @Test func evictsTheLeastRecentlyUsedFilesAndDropsTheirItems() async throws {
            let out = TestDirectory()
            let seeded = try Self.seed(out, ages: [3, 9, 1, 7, 5])
            var configuration = CrawlConfiguration(outDirectory: out.path)
            let size = try #require(seeded.first?.bytes)
            configuration.cacheMaxBytes = size * 2
            let (report, manifest) = try await CrawlFixture.run(configuration)
            // Oldest first: ages 9, 7, 5.
            let evicted = [1, 3, 4].compactMap { seeded[$0].file }
            #expect(report.evictedFiles == 3)
            #expect(report.evictedBytes == size * 3)
            #expect(manifest.run?.evicted == 3)
            #expect(manifest.run?.evictedBytes == size * 3)
            #expect(Set(manifest.items.map(\.id)) == ["0", "2"])
            for file in evicted { #expect(!FileIO.exists(out.file(file))) }
            #expect(CrawlFixture.cacheFiles(out.path) == Set([seeded[0].file, seeded[2].file].compactMap { $0 }))
            // Carried-over items keep when they were last seen.
            #expect(manifest.itemsByKey[seeded[0].key]?.lastSeen == seeded[0].lastSeen.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) })
            #expect(CacheVerifier.verify(manifest, layout: CacheLayout(outDirectory: out.path)).isClean)
        }

        @Test func filesThisRunUsesStayEvenOverTheCap() async throws {
            let out = TestDirectory()
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 0, launchesPages: 1)
            let (_, first) = try await CrawlFixture.run(configuration)
            let launchFiles = Set(first.items.compactMap(\.file))
            #expect(!launchFiles.isEmpty)

            configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 1)
            configuration.cacheMaxBytes = 1
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.evictedFiles == launchFiles.count)
            #expect(report.overCacheMax)
            let withFiles = manifest.items.filter { $0.file != nil }
            #expect(withFiles.count == 10)
            #expect(withFiles.allSatisfy { $0.source == "pixabay" && $0.status == .downloaded })
            // Launch items without an image stay listed: they name no file to evict.
            #expect(manifest.items.filter { $0.source == "launches" }.allSatisfy { $0.status == .noImage })
            #expect(CrawlFixture.cacheFiles(out.path) == Set(withFiles.compactMap(\.file)))
            #expect(report.cacheBytes == manifest.items.compactMap(\.bytes).reduce(0, +))
        }

        @Test func orphansAndPartFilesAreRemovedOtherFilesAreLeft() async throws {
            let out = TestDirectory()
            let seeded = try Self.seed(out, ages: [1, 2])
            let layout = CacheLayout(outDirectory: out.path)
            let orphan = CacheLayout.relativePath(forURL: "http://crash.example/x.jpg", format: .jpeg)
            let part = orphan + ".0123456789ab.part"
            let foreign = "cache/ab/README.txt"
            // Key-shaped names that this layout would never write are not ours either: a key in
            // another key's fan-out folder, upper-case hex, an unknown extension.
            let name = String(orphan.split(separator: "/").last!)
            let otherFan = orphan.hasPrefix("cache/00/") ? "01" : "00"
            let misplaced = ["cache/\(otherFan)/\(name)", "cache/\(orphan.dropFirst(6).prefix(2))/\(name.uppercased())",
                             String(orphan.dropLast(4)) + ".bmp"]
            let sheetPart = "index.html.00000000abcd.part"  // a contact sheet write that was killed
            for path in [orphan, part, foreign, "manifest.json.00000000abcd.part", sheetPart] + misplaced {
                try AtomicFile.write(Array("x".utf8), to: layout.absolutePath(path))
            }
            // The user deleted one cached file by hand: its item leaves the manifest.
            let deleted = try #require(seeded[1].file)
            unlink(layout.absolutePath(deleted))

            let (report, manifest) = try await CrawlFixture.run(CrawlConfiguration(outDirectory: out.path))
            #expect(!FileIO.exists(layout.absolutePath(orphan)))
            #expect(!FileIO.exists(layout.absolutePath(part)))
            #expect(!FileIO.exists(out.file("manifest.json.00000000abcd.part")))
            #expect(!FileIO.exists(out.file(sheetPart)))
            #expect(FileIO.exists(layout.absolutePath(foreign)))
            for path in misplaced { #expect(FileIO.exists(layout.absolutePath(path)), "\(path)") }
            #expect(report.orphansRemoved == 4)
            #expect(manifest.run?.orphansRemoved == 4)
            #expect(manifest.items.map(\.id) == ["0"])
            #expect(FileIO.exists(layout.absolutePath(try #require(seeded[0].file))))
        }
    }
}
