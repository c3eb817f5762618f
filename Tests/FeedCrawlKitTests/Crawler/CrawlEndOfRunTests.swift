import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// The end of a run, streamed: this run's items merged with the archive's, carried-over items
/// kept as they were or brought up to date with a file this run stored anew, a killed run's
/// journal folded first.
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

        /// Moves every item's `lastSeen` in OUT's manifest three days back (runs a second apart
        /// would otherwise look the same in a manifest, which keeps whole seconds); returns the
        /// manifest as saved.
        static func ageManifest(_ out: String) throws -> Manifest {
            var manifest = try ManifestStore.load(outDirectory: out)
            for index in manifest.items.indices {
                manifest.items[index].lastSeen = manifest.items[index].lastSeen?.addingTimeInterval(-3 * 86_400)
            }
            try ManifestStore.save(manifest, outDirectory: out)
            return try ManifestStore.load(outDirectory: out)
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

            let archived = try Self.ageManifest(out.path)
            feed.resetStats()
            let rerun = try await runCrawl(Self.sources(feed), out: out.path)
            #expect(feed.stats().images == 0)
            #expect(rerun.report.imageCounts == [.fresh: images.count])
            #expect(rerun.report.bytesDownloaded == 0)
            #expect(rerun.manifest.version == 2)
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
            #expect(try verifyCache(out.path).isClean)
        }

        @Test func itemsNotListedThisRunKeepTheirImagesAndLastSeen() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = CrawlDirectory()
            _ = try await runCrawl(Self.sources(feed), out: out.path)
            let first = try Self.ageManifest(out.path)
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
            #expect(try verifyCache(out.path).isClean)
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
            #expect(try verifyCache(out.path).isClean)
        }

        @Test func aJournalOverAManifestWithoutARunRecordIsFolded() async throws {
            // A manifest with `"run": null`, as a fold writes when a killed first run left only
            // a journal, and a journal again (that run was killed too).
            let out = TestDirectory()
            let seeded = try CrawlMaintenanceTests.seed(out, ages: [1, 2])
            #expect(try ManifestStore.load(outDirectory: out.path).run == nil)
            let journal = try Journal(path: CacheLayout(outDirectory: out.path).journalPath)
            var listed = seeded[0]
            listed.title = "listed again"
            journal.append(listed)
            journal.append(ManifestItem(source: "old", id: "9", page: 2, title: "no image", lastSeen: seeded[0].lastSeen))
            try journal.flush()
            let (report, manifest) = try await CrawlFixture.run(CrawlConfiguration(outDirectory: out.path))
            #expect(report.storageProblem == nil)
            #expect(manifest.items.map(\.id) == ["0", "1", "9"])
            #expect(manifest.itemsByKey[listed.key]?.title == "listed again")
            #expect(try verifyCache(out.path).isClean)
        }

        @Test func aJournalAKilledRunLeftIsFoldedAndNotFetchedAgain() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let done = CrawlDirectory()
            let first = try await runCrawl(Self.sources(feed, pages: 1), out: done.path)
            // A run killed after journaling every item: its cache files and journal, no manifest.
            let killed = CrawlDirectory()
            let layout = CacheLayout(outDirectory: killed.path)
            try LocalCacheStore(layout: layout).prepare()
            for file in CrawlFixture.cacheFiles(done.path) {
                try AtomicFile.write(try FileIO.read(done.path + "/" + file), to: layout.absolutePath(file))
            }
            let stray = CacheLayout.relativePath(forKey: String(repeating: "ab", count: 32), format: .jpeg) + ".0123456789ab.part"
            try AtomicFile.write([1, 2, 3], to: layout.absolutePath(stray))
            let journal = try Journal(path: layout.journalPath)
            for item in first.items { journal.append(item) }
            try journal.flush()

            feed.resetStats()
            let rerun = try await runCrawl(Self.sources(feed, pages: 1), out: killed.path)
            #expect(feed.stats().images == 0)
            #expect(rerun.report.imageCounts == [.fresh: first.items.flatMap(\.images).count])
            #expect(rerun.items.count == first.items.count)
            #expect(!FileIO.exists(layout.journalPath))
            #expect(!FileIO.exists(layout.absolutePath(stray)))
            #expect(try verifyCache(killed.path).isClean)
        }
    }
}
