import DemoFeed
import Testing
@testable import FeedCrawlKit

/// Freshness, revalidation, replacement and de-duplication through real crawls of DemoFeed.
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
            #expect(fresh.imageCounts == [.fresh: 10])
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
                let previous = try #require(old[item.key]?.soleImage)
                let image = try #require(item.soleImage)
                #expect(item.status == .revalidated)
                #expect(image.file == previous.file)
                #expect(image.sha256 == previous.sha256)
                #expect(image.etag != nil && image.etag == previous.etag)
                #expect(try #require(image.fetchedAt) >= #require(previous.fetchedAt))
            }
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func aFailedRefetchKeepsTheEarlierCopy() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let broken = Flag()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                broken.isOn && CrawlFixture.isImage(request) ? .text("gone", status: 404) : nil
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            let (_, before) = try await CrawlFixture.run(configuration)
            let files = CrawlFixture.cacheFiles(out.path)
            #expect(files.count == 10)

            broken.isOn = true
            configuration.ttlSeconds = 0
            let (report, after) = try await CrawlFixture.run(configuration)
            #expect(report.count(.failed) == 10)
            let old = before.itemsByKey
            for item in after.items {
                let previous = try #require(old[item.key]?.soleImage)
                let image = try #require(item.soleImage)
                #expect(image.status == .failed)
                #expect(image.error == "HTTP 404")
                #expect(image.file == previous.file)
                #expect(image.sha256 == previous.sha256)
                #expect(image.etag == previous.etag)
                #expect(image.fetchedAt == previous.fetchedAt)
            }
            #expect(CrawlFixture.cacheFiles(out.path) == files)
            #expect(try await verifyCache(out.path).isClean)

            // The kept copy and its validators serve the next run: a 304 each.
            broken.isOn = false
            feed.resetStats()
            let (third, _) = try await CrawlFixture.run(configuration)
            #expect(third.count(.revalidated) == 10)
            #expect(feed.stats().notModified == 10)
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
            #expect(before.items.allSatisfy { $0.status == .downloaded && $0.soleImage?.file?.hasSuffix(".png") == true })
            let oldFiles = Set(before.items.compactMap { $0.soleImage?.file })

            changed.isOn = true
            configuration.ttlSeconds = 0
            let (report, after) = try await CrawlFixture.run(configuration)
            #expect(report.count(.downloaded) == 10)
            for item in after.items {
                let image = try #require(item.soleImage)
                #expect(image.status == .downloaded)
                #expect(image.file?.hasSuffix(".jpg") == true)
                #expect(image.sha256 == CrawlFixture.sha256(jpeg))
                #expect(image.width == 40 && image.height == 30)
                #expect(image.etag == "\"v2\"")
            }
            let files = CrawlFixture.cacheFiles(out.path)
            #expect(files == Set(after.items.compactMap { $0.soleImage?.file }))
            #expect(files.isDisjoint(with: oldFiles))
            #expect(try await verifyCache(out.path).isClean)

            // The new validators are used next time.
            let (third, _) = try await CrawlFixture.run(configuration)
            #expect(third.count(.revalidated) == 10)
        }

        @Test func oneTransferPerURLHoweverManyItemsWantIt() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log))
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 0)
            var launches = LaunchesSourceConfiguration(url: feed.launchesURL, pages: 3)
            launches.variants = [.small, .large]
            configuration.sources = [.launches(launches)]
            let (report, manifest) = try await CrawlFixture.run(configuration)
            let images = manifest.items.flatMap(\.images)
            let urls = Set(images.map(\.url))
            try #require(images.count > urls.count, "the demo launches should share patches")
            #expect(manifest.items.filter { !$0.images.isEmpty }.allSatisfy { $0.images.map(\.variant) == ["small", "large"] })
            let requests = log.counts(prefix: "/img/")
            #expect(requests.count == urls.count)
            #expect(requests.values.allSatisfy { $0 == 1 })
            #expect(images.allSatisfy { $0.status == .downloaded })
            for url in urls {
                let sharing = images.filter { $0.url == url }
                #expect(Set(sharing.compactMap(\.file)).count == 1)
                #expect(Set(sharing.compactMap(\.sha256)).count == 1)
            }
            // Bytes downloaded count each transfer once.
            let distinct = Dictionary(images.map { ($0.file ?? "", $0.bytes ?? 0) }, uniquingKeysWith: { a, _ in a })
            #expect(report.bytesDownloaded == distinct.values.reduce(0, +))
            #expect(report.imageCounts[.downloaded] == images.count)
            #expect(try await verifyCache(out.path).isClean)
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
