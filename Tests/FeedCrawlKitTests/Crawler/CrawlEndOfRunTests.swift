import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlStorage

/// The end of a run: this run's groups committed into the archive, carried-over items kept as
/// they were or brought up to date with a file this run stored anew, a killed run's journal
/// adopted first, an earlier release's manifest and journal converted.
extension CrawlerTests {
    @Suite("Crawler end of run", .serialized)
    struct CrawlEndOfRunTests {
        /// Every variant of both demo sources, two pages each.
        static func sources(_ feed: DemoFeedServer, pages: Int = 2) -> [SourceConfiguration] {
            var pixabay = PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, pages: pages, perPage: 10)
            pixabay.variants = [.preview, .webformat, .large]
            pixabay.pageTTL = 0
            return [.pixabay(pixabay), launchesSource(feed, pages: pages, variants: [.small, .large])]
        }

        /// OUT's items as the archive holds them, once the wall clock is past the second the last
        /// run started in (items keep whole seconds: a run in the same second would list them
        /// at the same time).
        static func archived(_ out: String) async throws -> Manifest {
            let manifest = try await archivedManifest(out)
            let started = try #require(manifest.run?.startedAt).timeIntervalSince1970.rounded(.down)
            while Date().timeIntervalSince1970 < started + 1 { try await Task.sleep(for: .milliseconds(20)) }
            return manifest
        }

        /// The journal files under OUT (`archive/journal/…`), relative to OUT.
        static func journalFiles(_ out: String) -> [String] {
            TestDirectory.list(out + "/archive/journal").filter { $0.hasSuffix(".ndjson") }.map { "archive/journal/" + $0 }
        }

        /// The file facts of an image (status and error set aside).
        static func facts(_ image: ImageRecord) -> ImageRecord.Outcome { image.outcome.facts }

        @Test func aWarmRerunOverAMultiVariantArchiveMakesNoImageRequest() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = CrawlDirectory()
            let first = try await runCrawl(Self.sources(feed), out: out.path)
            let images = first.items.flatMap(\.images)
            #expect(images.count > 60)
            #expect(images.allSatisfy { $0.status == .downloaded })
            #expect(Set(first.items("pixabay").map { $0.images.map(\.variant) }) == [["preview", "webformat", "large"]])

            let archived = try await Self.archived(out.path)
            feed.resetStats()
            let rerun = try await runCrawl(Self.sources(feed), out: out.path)
            #expect(feed.stats().images == 0)
            #expect(rerun.report.imageCounts == [.fresh: images.count])
            #expect(rerun.report.bytesDownloaded == 0)
            #expect(rerun.manifest.version == 3, "the root of the archive format 3")
            #expect(rerun.items.count == first.items.count)
            let before = archived.itemsByKey
            let started = try #require(rerun.manifest.run?.startedAt).wholeSeconds  // items keep whole seconds
            for item in rerun.items {
                let old = try #require(before[item.key])
                #expect(item.images.map(\.variant) == old.images.map(\.variant))
                #expect(item.images.map(Self.facts) == old.images.map(Self.facts), "\(item.source)/\(item.id)")
                #expect(item.images.allSatisfy { $0.status == .fresh && $0.error == nil })
                #expect(item.lastSeen == started)
                #expect(try #require(item.lastSeen) > #require(old.lastSeen))
            }
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func itemsNotListedThisRunKeepTheirImagesAndLastSeen() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = CrawlDirectory()
            _ = try await runCrawl(Self.sources(feed), out: out.path)
            let first = try await Self.archived(out.path)
            feed.resetStats()
            let second = try await runCrawl(Self.sources(feed, pages: 1), out: out.path)
            #expect(feed.stats().images == 0)
            // This run's counts are its own; the manifest also holds what it carried over.
            let listed = second.report.sources.reduce(0) { $0 + $1.items }
            #expect(second.report.itemCount == listed)
            #expect(second.manifest.run?.counts.values.reduce(0, +) == listed)
            #expect(second.items.count == first.items.count)
            #expect(second.items.count > listed)
            let before = first.itemsByKey
            let started = try #require(second.manifest.run?.startedAt).wholeSeconds
            var carried = 0
            for item in second.items {
                let old = try #require(before[item.key])
                if item.page == 1 {
                    #expect(item.images.allSatisfy { $0.status == .fresh })
                    #expect(item.lastSeen == started)
                    #expect(try #require(item.lastSeen) > #require(old.lastSeen))
                } else {
                    carried += 1
                    #expect(item == old, "\(item.source)/\(item.id) is carried over unchanged")
                }
            }
            #expect(carried == first.items.count - listed)
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func aCarriedItemSharingAURLThisRunStoredAnewTakesItsNewFile() async throws {
            // Launches share mission patches: items of page 2, which this run does not list,
            // point at patches that page-1 items re-download with new content of another type.
            let out = TestDirectory()
            let log = PathCounter()
            let changed = Flag()
            let jpeg = ImageFixtures.jpeg(width: 64, height: 64, fillBytes: 300)
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                guard changed.isOn, request.path.hasPrefix("/img/patch/") else { return nil }
                return ServerResponse(headers: [("Content-Type", "image/jpeg"), ("ETag", "\"new\"")], body: .bytes(jpeg))
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 0, launchesPages: 2)
            let (_, before) = try await CrawlFixture.run(configuration)
            let pageOneURLs = Set(before.items.filter { $0.page == 1 }.flatMap(\.images).map(\.url))
            let sharing = before.items.filter { $0.page == 2 && $0.soleImage.map { pageOneURLs.contains($0.url) } == true }
            try #require(!sharing.isEmpty)

            changed.isOn = true
            configuration.ttlSeconds = 0
            configuration.sources = [.launches(LaunchesSourceConfiguration(url: feed.launchesURL, pages: 1))]
            let (_, after) = try await CrawlFixture.run(configuration)
            let byKey = after.itemsByKey
            for old in sharing {
                let item = try #require(byKey[old.key])
                let image = try #require(item.soleImage)
                #expect(item.lastSeen == old.lastSeen)
                #expect(image.status == old.soleImage?.status)
                #expect(image.sha256 == CrawlFixture.sha256(jpeg))
                #expect(image.file?.hasSuffix(".jpg") == true)
                #expect(image.etag == "\"new\"")
                #expect(image.width == 64)
            }
            // Page-2 items that share nothing keep their own files.
            #expect(after.items.filter { $0.page == 2 }.count == before.items.filter { $0.page == 2 }.count)
            // The replaced files are gone.
            for old in sharing { #expect(!FileIO.exists(out.file(try #require(old.soleImage?.file)))) }
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func aJournalOverAManifestWithoutARunRecordIsFolded() async throws {
            // A manifest with `"run": null`, as a fold writes when a killed first run left only
            // a journal, and a journal again (that run was killed too).
            let out = TestDirectory()
            let seeded = try CrawlMaintenanceTests.seed(out, ages: [1, 2])
            #expect(try ManifestStore.load(outDirectory: out.path).run == nil)
            // The journal of that release: one version-2 item line per finished item.
            var listed = seeded[0]
            listed.title = "listed again"
            let lines = [listed, ManifestItem(source: "old", id: "9", page: 2, title: "no image", lastSeen: seeded[0].lastSeen)]
            try AtomicFile.write(lines.flatMap { ItemJSON.line($0) + [0x0A] }, to: CacheLayout(outDirectory: out.path).journalPath)
            let (report, manifest) = try await CrawlFixture.run(CrawlConfiguration(outDirectory: out.path))
            #expect(report.storageProblem == nil)
            #expect(manifest.items.map(\.id) == ["0", "1", "9"])
            #expect(manifest.itemsByKey[listed.key]?.title == "listed again")
            #expect(!FileIO.exists(CacheLayout(outDirectory: out.path).journalPath), "the old journal is converted, then removed")
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func aJournalAKilledRunLeftIsFoldedAndNotFetchedAgain() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let done = CrawlDirectory()
            let first = try await runCrawl(Self.sources(feed, pages: 1), out: done.path)
            // A run killed after journaling every page: its cache files, its journal files (the
            // finished run's, which no root names here), a staged body and its marker of a run in
            // progress; no root.
            let killed = CrawlDirectory()
            let layout = CacheLayout(outDirectory: killed.path)
            for file in CrawlFixture.cacheFiles(done.path) + Self.journalFiles(done.path) {
                try writeFile(try FileIO.read(done.path + "/" + file), to: layout.absolutePath(file))
            }
            #expect(!Self.journalFiles(killed.path).isEmpty)
            let stray = "cache/ab/" + String(repeating: "ab", count: 32) + ".0123456789ab.part"
            try writeFile([1, 2, 3], to: layout.absolutePath(stray))
            let intent = try plantIntent([stray], in: killed.path)
            try AtomicFile.write(Array("host x pid 1\n".utf8), to: killed.path + "/.unfinished")

            feed.resetStats()
            let rerun = try await runCrawl(Self.sources(feed, pages: 1), out: killed.path)
            #expect(feed.stats().images == 0)
            #expect(rerun.report.imageCounts == [.fresh: first.items.flatMap(\.images).count])
            #expect(rerun.items.count == first.items.count)
            #expect(!FileIO.exists(layout.absolutePath(stray)))
            #expect(!FileIO.exists(intent))
            #expect(!FileIO.exists(killed.path + "/.unfinished"))
            // The adopted journal files are named by the new root: the next open adopts nothing.
            #expect(try await Repository.open(Backends.folder(killed.path)).adopted == 0)
            #expect(try await verifyCache(killed.path).isClean)
        }
    }
}
