import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// Cancellation through `Crawler.run`: a failing source, the whole run (deadline, task
/// cancellation). The pipeline's own grains (one URL, one source) are in
/// ImagePipelineCancellationTests.
extension CrawlerTests {
    @Suite("Crawler cancellation", .serialized)
    struct CrawlCancellationTests {
        /// An image that takes about six seconds to arrive: cancellation must come long before.
        static let slowImage = CrawlFixture.png(side: 24, bytes: 1200)
        static func slow(_ request: ServerRequest) -> ServerResponse {
            ServerResponse(headers: [("Content-Type", "image/png")], body: .drip(slowImage, bytesPerSecond: 200))
        }

        // Cancelling one URL: ImagePipelineCancellationTests.

        @Test func aFailingSourceCancelsItsOwnImagesOnly() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                if request.path.hasPrefix("/img/preview/") { return Self.slow(request) }
                if request.path == "/api/", request.query["page"] == "2" {
                    return ServerResponse(body: .reset)
                }
                return nil
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 2, launchesPages: 1)
            configuration.retries = 0
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.sources.first { $0.name == "pixabay" }?.failure != nil)
            #expect(report.anySourceFailed)
            let pixabay = manifest.items.filter { $0.source == "pixabay" }
            let launches = manifest.items.filter { $0.source == "launches" }
            #expect(pixabay.count == 10)
            #expect(pixabay.allSatisfy { $0.status == .cancelled && $0.soleImage?.file == nil })
            #expect(!launches.isEmpty)
            #expect(launches.allSatisfy { $0.status == .downloaded || $0.status == .noImage })
            #expect(CrawlFixture.partFiles(out.path).isEmpty)
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func aFailingSourceLeavesTheImagesItSharesToTheOtherSource() async throws {
            // Two sources list the same page (the demo ignores the query); the one searching
            // "doomed" fails on its page 2. No image is served before it has failed.
            let out = TestDirectory()
            let log = PathCounter()
            let gate = Gate()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                if CrawlFixture.isImage(request) { gate.wait() }
                if request.path == "/api/", request.query["q"] == "doomed", request.query["page"] == "2" {
                    return ServerResponse(body: .reset)
                }
                return nil
            })
            defer { gate.open(); feed.stop() }
            var doomed = PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, pages: 2, perPage: 10)
            doomed.name = "doomed"
            doomed.query = "doomed"
            doomed.pageTTL = 0
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            configuration.sources.append(.pixabay(doomed))
            configuration.retries = 0
            let report = try await Crawler(configuration: configuration) { event in
                if case .sourceFailed = event { gate.open() }
            }.run()
            let manifest = try await archivedManifest(out.path)
            #expect(report.sources.first { $0.name == "doomed" }?.failure != nil)
            #expect(report.sources.first { $0.name == "pixabay" }?.failure == nil)
            let lost = manifest.items.filter { $0.source == "doomed" }
            let kept = manifest.items.filter { $0.source == "pixabay" }
            #expect(lost.count == 10 && kept.count == 10)
            #expect(lost.allSatisfy { $0.status == .cancelled && $0.soleImage?.file == nil })
            #expect(kept.allSatisfy { $0.status == .downloaded })
            #expect(Set(kept.compactMap { $0.soleImage?.url }) == Set(lost.compactMap { $0.soleImage?.url }))
            #expect(CrawlFixture.partFiles(out.path).isEmpty)
            #expect(try await verifyCache(out.path).isClean)
        }

        @Test func deadlineCancelsWhatIsInFlightAndStillWritesTheManifest() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                CrawlFixture.isImage(request) ? Self.slow(request) : nil
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            configuration.deadlineSeconds = 1.5
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(report.deadlineReached)
            #expect(!report.cancelled)
            #expect(report.count(.cancelled) == 10)
            #expect(manifest.run?.deadlineReached == true)
            #expect(manifest.items.count == 10)
            #expect(manifest.items.allSatisfy {
                $0.status == .cancelled && $0.soleImage?.error == "cancelled: deadline reached" && $0.soleImage?.file == nil
            })
            #expect(CrawlFixture.partFiles(out.path).isEmpty)
            #expect(CrawlFixture.cacheFiles(out.path).isEmpty)
            #expect(!FileIO.exists(out.file("manifest.journal")))
        }

        @Test func aDeadlineNotReachedChangesNothing() async throws {
            let out = TestDirectory()
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            configuration.deadlineSeconds = 60
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(!report.deadlineReached)
            #expect(report.count(.downloaded) == 10)
            #expect(manifest.run?.deadlineReached == nil)
        }

        @Test func cancellingTheRunCancelsTransfersAndWritesTheManifest() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                CrawlFixture.isImage(request) ? Self.slow(request) : nil
            })
            defer { feed.stop() }
            let configuration = CrawlFixture.configuration(feed, out: out.path, launchesPages: 1)
            let crawl = Task { try await Crawler(configuration: configuration).run() }
            let inFlight = await waitUntil { log.total(prefix: "/img/") >= 8 }
            #expect(inFlight)
            crawl.cancel()
            let report = try await crawl.value
            #expect(report.cancelled)
            let manifest = try await archivedManifest(out.path)
            let withImage = manifest.items.filter { !$0.images.isEmpty }
            #expect(!withImage.isEmpty)
            #expect(withImage.allSatisfy { $0.status == .cancelled })
            #expect(manifest.items.count == report.itemCount)
            #expect(CrawlFixture.partFiles(out.path).isEmpty)
            #expect(CrawlFixture.cacheFiles(out.path).isEmpty)
        }

        @Test func aCancelledRevalidationKeepsTheCachedCopy() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let slow = Flag()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                slow.isOn && CrawlFixture.isImage(request) ? Self.slow(request) : nil
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            let (_, first) = try await CrawlFixture.run(configuration)
            let files = CrawlFixture.cacheFiles(out.path)
            #expect(files.count == 10)

            slow.isOn = true
            configuration.ttlSeconds = 0
            configuration.deadlineSeconds = 1.5
            let (report, second) = try await CrawlFixture.run(configuration)
            #expect(report.count(.cancelled) == 10)
            let old = first.itemsByKey
            for item in second.items {
                let previous = try #require(old[item.key]?.soleImage)
                let image = try #require(item.soleImage)
                #expect(item.status == .cancelled)
                #expect(image.file == previous.file)
                #expect(image.sha256 == previous.sha256)
                #expect(image.fetchedAt == previous.fetchedAt)
            }
            #expect(CrawlFixture.cacheFiles(out.path) == files)
            #expect(try await verifyCache(out.path).isClean)

            // The kept validators still work: the next run revalidates with 304s.
            slow.isOn = false
            configuration.deadlineSeconds = nil
            feed.resetStats()
            let (third, _) = try await CrawlFixture.run(configuration)
            #expect(third.count(.revalidated) == 10)
            #expect(feed.stats().notModified == 10)
        }
    }
}
