import DemoFeed
import Testing
@testable import FeedCrawlKit

/// Revalidation, replacement and de-duplication through real crawls of DemoFeed.
extension CrawlerTests {
    @Suite("Crawler cache", .serialized)
    struct CrawlCacheTests {
        @Test func staleImagesAreRevalidatedWith304() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log))
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            let (first, before) = try await CrawlFixture.run(configuration)
            #expect(first.count(.downloaded) == 10)
            let filesBefore = CrawlFixture.cacheFiles(out.path)

            // Within the TTL nothing is requested.
            feed.resetStats()
            let (fresh, _) = try await CrawlFixture.run(configuration)
            #expect(fresh.count(.fresh) == 10)
            #expect(feed.stats().images == 0)

            // With a TTL of zero every image is revalidated, and the server says 304.
            configuration.ttlSeconds = 0
            feed.resetStats()
            let (second, after) = try await CrawlFixture.run(configuration)
            #expect(second.count(.revalidated) == 10)
            #expect(feed.stats().images == 10)
            #expect(feed.stats().notModified == 10)
            #expect(CrawlFixture.cacheFiles(out.path) == filesBefore)
            let old = before.itemsByKey
            for item in after.items {
                let previous = try #require(old[item.key])
                #expect(item.status == .revalidated)
                #expect(item.file == previous.file)
                #expect(item.sha256 == previous.sha256)
                #expect(item.etag != nil && item.etag == previous.etag)
                #expect(try #require(item.fetchedAt) >= #require(previous.fetchedAt))
            }
            #expect(CacheVerifier.verify(after, layout: CacheLayout(outDirectory: out.path)).isClean)
        }

        @Test func changedImageReplacesTheFileAndRemovesTheOldName() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let changed = Flag()
            let png = CrawlFixture.png(side: 16, seed: 1)
            let jpeg = ImageFixtures.jpeg(width: 40, height: 30, fillBytes: 500)
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                guard CrawlFixture.isImage(request) else { return nil }
                let (etag, type, body) = changed.isOn ? ("\"v2\"", "image/jpeg", jpeg) : ("\"v1\"", "image/png", png)
                if request.header("if-none-match") == etag { return ServerResponse(status: 304, headers: [("ETag", etag)]) }
                return ServerResponse(headers: [("Content-Type", type), ("ETag", etag)], body: .bytes(body))
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            let (_, before) = try await CrawlFixture.run(configuration)
            #expect(before.items.allSatisfy { $0.status == .downloaded && $0.file?.hasSuffix(".png") == true })
            let oldFiles = Set(before.items.compactMap(\.file))

            changed.isOn = true
            configuration.ttlSeconds = 0
            let (report, after) = try await CrawlFixture.run(configuration)
            #expect(report.count(.downloaded) == 10)
            for item in after.items {
                #expect(item.status == .downloaded)
                #expect(item.file?.hasSuffix(".jpg") == true)
                #expect(item.sha256 == CrawlFixture.sha256(jpeg))
                #expect(item.width == 40 && item.height == 30)
                #expect(item.etag == "\"v2\"")
            }
            let files = CrawlFixture.cacheFiles(out.path)
            #expect(files == Set(after.items.compactMap(\.file)))
            #expect(files.isDisjoint(with: oldFiles))
            #expect(CacheVerifier.verify(after, layout: CacheLayout(outDirectory: out.path)).isClean)

            // The new validators are used next time.
            let (third, _) = try await CrawlFixture.run(configuration)
            #expect(third.count(.revalidated) == 10)
        }

        @Test func itemsCarriedOverFollowAFileThisRunReplaced() async throws {
            // Launches share mission patches: items of page 2 that this run does not list keep
            // pointing at a patch a page-1 item re-downloads with new content.
            let out = TestDirectory()
            let log = PathCounter()
            let changed = Flag()
            let jpeg = ImageFixtures.jpeg(width: 64, height: 64, fillBytes: 300)
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                guard changed.isOn, request.path.hasPrefix("/img/patch/") else { return nil }
                return ServerResponse(headers: [("Content-Type", "image/jpeg")], body: .bytes(jpeg))
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 0, launchesPages: 2)
            let (_, before) = try await CrawlFixture.run(configuration)
            let pageOneURLs = Set(before.items.filter { $0.page == 1 }.compactMap(\.imageURL))
            let sharing = before.items.filter { $0.page == 2 && $0.imageURL.map(pageOneURLs.contains) == true }
            try #require(!sharing.isEmpty)

            changed.isOn = true
            configuration.ttlSeconds = 0
            configuration.sources = [.launches(LaunchesSourceConfiguration(url: feed.launchesURL, pages: 1))]
            let (_, after) = try await CrawlFixture.run(configuration)
            let byKey = after.itemsByKey
            for old in sharing {
                let item = try #require(byKey[old.key])
                #expect(item.lastSeen == old.lastSeen)
                #expect(item.status == old.status)
                #expect(item.sha256 == CrawlFixture.sha256(jpeg))
                #expect(item.file?.hasSuffix(".jpg") == true)
            }
            // Page-2 items that share nothing keep their own files.
            #expect(after.items.filter { $0.page == 2 }.count == before.items.filter { $0.page == 2 }.count)
            #expect(CacheVerifier.verify(after, layout: CacheLayout(outDirectory: out.path)).isClean)
        }

        @Test func oneTransferPerURLHoweverManyItemsWantIt() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log))
            defer { feed.stop() }
            let configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 0, launchesPages: 3)
            let (report, manifest) = try await CrawlFixture.run(configuration)
            let withImage = manifest.items.filter { $0.imageURL != nil }
            let urls = Set(withImage.compactMap(\.imageURL))
            try #require(withImage.count > urls.count, "the demo launches should share patches")
            let requests = log.counts(prefix: "/img/")
            #expect(requests.count == urls.count)
            #expect(requests.values.allSatisfy { $0 == 1 })
            #expect(withImage.allSatisfy { $0.status == .downloaded })
            for url in urls {
                let sharing = withImage.filter { $0.imageURL == url }
                #expect(Set(sharing.compactMap(\.file)).count == 1)
                #expect(Set(sharing.compactMap(\.sha256)).count == 1)
            }
            // Bytes downloaded count each transfer once.
            let distinct = Dictionary(withImage.map { ($0.file ?? "", $0.bytes ?? 0) }, uniquingKeysWith: { a, _ in a })
            #expect(report.bytesDownloaded == distinct.values.reduce(0, +))
        }

        @Test func waitingRequestsStayWithinTheBound() async throws {
            let out = TestDirectory()
            var options = DemoFeedOptions()
            options.latencyMs = 5
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 2, perPage: 20)
            configuration.concurrency = 2
            configuration.perHost = 2
            configuration.maxWaiting = 3
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(manifest.items.count == 40)
            #expect(report.count(.downloaded) == 40)
            #expect(report.peakWaiting <= 3)
            #expect(report.peakWaiting >= 1)
        }
    }
}
