import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit

/// Cancellation at each grain: one URL, one source, the whole run (deadline, task cancellation).
extension CrawlerTests {
    @Suite("Crawler cancellation", .serialized)
    struct CrawlCancellationTests {
        /// An image that takes about six seconds to arrive: cancellation must come long before.
        static let slowImage = CrawlFixture.png(side: 24, bytes: 1200)
        static func slow(_ request: ServerRequest) -> ServerResponse {
            ServerResponse(headers: [("Content-Type", "image/png")], body: .drip(slowImage, bytesPerSecond: 200))
        }

        @Test func cancellingOneRunningURLLeavesNoPartialFile() async throws {
            let out = TestDirectory()
            let layout = CacheLayout(outDirectory: out.path)
            try layout.createFanOutDirectories()
            let quick = CrawlFixture.png(side: 8)
            try await withHTTPServer(handler: { request in
                request.path == "/slow.png" ? Self.slow(request)
                    : ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(quick))
            }) { server in
                try await HTTPEngine.withEngine { engine in
                    let fetcher = ImageFetcher(
                        engine: engine, layout: layout, configuration: CrawlConfiguration(outDirectory: out.path),
                        cached: [:], events: { _ in })
                    let results = Locked<[Int: ImageOutcome]>([:])
                    let queue = PrefetchQueue<ImageOutcome>(
                        limits: .init(concurrency: 4, perHost: 4, maxWaiting: 8),
                        operation: { await fetcher.fetch($0.key) },
                        cancelled: { fetcher.cancelledOutcome($0.key) },
                        deliver: { outcome, subscribers in
                            results.withLock { for s in subscribers { $0[s] = outcome } }
                        })
                    let slowURL = server.baseURL + "/slow.png"
                    await queue.submit(key: slowURL, host: "h", priority: .init(page: 1), subscriber: 0)
                    await queue.submit(key: server.baseURL + "/a.png", host: "h", priority: .init(page: 1), subscriber: 1)
                    await queue.submit(key: server.baseURL + "/b.png", host: "h", priority: .init(page: 1), subscriber: 2)
                    // The slow body is arriving: its temporary file exists.
                    let started = await waitUntil { !CrawlFixture.partFiles(out.path).isEmpty }
                    #expect(started)
                    queue.cancel(key: slowURL)
                    await queue.drain()
                    let outcomes = results.withLock { $0 }
                    #expect(outcomes[0]?.status == .cancelled)
                    #expect(outcomes[1]?.status == .downloaded)
                    #expect(outcomes[2]?.status == .downloaded)
                    #expect(CrawlFixture.partFiles(out.path).isEmpty)
                    #expect(!FileIO.exists(layout.path(forURL: slowURL, format: .png)))
                    #expect(CrawlFixture.cacheFiles(out.path).count == 2)
                }
            }
        }

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
            let clock = ContinuousClock.now
            let (report, manifest) = try await CrawlFixture.run(configuration)
            #expect(ContinuousClock.now - clock < .seconds(5))
            #expect(report.sources.first { $0.name == "pixabay" }?.failure != nil)
            #expect(report.anySourceFailed)
            let pixabay = manifest.items.filter { $0.source == "pixabay" }
            let launches = manifest.items.filter { $0.source == "launches" }
            #expect(pixabay.count == 10)
            #expect(pixabay.allSatisfy { $0.status == .cancelled && $0.file == nil })
            #expect(!launches.isEmpty)
            #expect(launches.allSatisfy { $0.status == .downloaded || $0.status == .noImage })
            #expect(CrawlFixture.partFiles(out.path).isEmpty)
            #expect(CacheVerifier.verify(manifest, layout: CacheLayout(outDirectory: out.path)).isClean)
        }

        @Test func deadlineCancelsWhatIsInFlightAndStillWritesTheManifest() async throws {
            let out = TestDirectory()
            let log = PathCounter()
            let feed = try DemoFeedServer(options: CrawlFixture.options(log: log) { request in
                CrawlFixture.isImage(request) ? Self.slow(request) : nil
            })
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            configuration.deadlineSeconds = 0.4
            let clock = ContinuousClock.now
            let (report, manifest) = try await CrawlFixture.run(configuration)
            let elapsed = ContinuousClock.now - clock
            #expect(elapsed >= .milliseconds(400))
            #expect(elapsed < .seconds(4))
            #expect(report.deadlineReached)
            #expect(!report.cancelled)
            #expect(report.count(.cancelled) == 10)
            #expect(manifest.run?.deadlineReached == true)
            #expect(manifest.items.count == 10)
            #expect(manifest.items.allSatisfy { $0.status == .cancelled && $0.error == "cancelled: deadline reached" })
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
            let manifest = try ManifestStore.load(outDirectory: out.path)
            let withImage = manifest.items.filter { $0.imageURL != nil }
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
            configuration.deadlineSeconds = 0.3
            let (report, second) = try await CrawlFixture.run(configuration)
            #expect(report.count(.cancelled) == 10)
            let old = first.itemsByKey
            for item in second.items {
                let previous = try #require(old[item.key])
                #expect(item.status == .cancelled)
                #expect(item.file == previous.file)
                #expect(item.sha256 == previous.sha256)
                #expect(item.fetchedAt == previous.fetchedAt)
            }
            #expect(CrawlFixture.cacheFiles(out.path) == files)
            #expect(CacheVerifier.verify(second, layout: CacheLayout(outDirectory: out.path)).isClean)

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
