import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

extension CrawlerTests {
    @Suite("Record and replay")
    struct RecordReplayTests {
        static let key = "RecKey%2Fsecret+7"

        static func sources(_ feed: DemoFeedServer) -> [SourceConfiguration] {
            var pixabay = PixabaySourceConfiguration(url: feed.pixabayURL, key: key, pages: 3, perPage: 5)
            pixabay.pageTTL = 3600
            return [.pixabay(pixabay), launchesSource(feed, pages: 2, details: true)]
        }

        /// Every file under `dir`, recursively, with its bytes.
        static func files(_ dir: String) -> [(String, [UInt8])] {
            var out: [(String, [UInt8])] = []
            for name in TestDirectory.list(dir) {
                let path = dir + "/" + name
                if FileIO.isDirectory(path) {
                    out += files(path)
                } else if let bytes = try? FileIO.read(path) {
                    out.append((path, bytes))
                }
            }
            return out
        }

        @Test func aRecordedCrawlReplaysWithoutTheNetworkForFeeds() async throws {
            let feed = try DemoFeedServer(options: {
                var options = DemoFeedOptions.observing(RequestLog()) { request in
                    // A page error worth reproducing offline.
                    guard request.path == "/api/", request.query["page"] == "2" else { return nil }
                    return .text("<html>Bad gateway \(request.target)</html>", contentType: "text/html")
                }
                options.launches = 22
                return options
            }())
            defer { feed.stop() }
            let recording = CrawlDirectory()
            let out = CrawlDirectory()
            let recorded = try await runCrawl(Self.sources(feed), out: out.path) { $0.recordDirectory = recording.path }
            #expect(TestDirectory.list(recording.path + "/pixabay").count == 3)
            #expect(TestDirectory.list(recording.path + "/launches").count == 2 + 22)  // two lists, 22 details
            for (path, bytes) in Self.files(recording.path) {
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(!text.contains("RecKey"), "\(path)")
                #expect(!text.contains("secret"), "\(path)")
            }
            let stats = feed.stats()

            let replayOut = CrawlDirectory()
            let replayed = try await runCrawl(Self.sources(feed), out: replayOut.path) { $0.replayDirectory = recording.path }
            #expect(feed.stats().api == stats.api)          // no feed request at all
            #expect(feed.stats().graphql == stats.graphql)
            #expect(feed.stats().images > stats.images)     // images come from the network as usual

            func summary(_ run: CrawlRun) -> [String] {
                run.items.map { item in
                    "\(item.source) \(item.id) \(item.page) \(item.status) \(item.details?.rocketName ?? "-") "
                        + item.images.map { "\($0.variant)=\($0.url):\($0.status.rawValue)" }.joined(separator: " ")
                }
            }
            #expect(summary(replayed) == summary(recorded))
            #expect(replayed.items.count == 10 + 22)
            #expect(replayed.report("pixabay")?.warnings == recorded.report("pixabay")?.warnings)
            #expect(replayed.report("pixabay")?.failedPages == 1)
            // Replay neither reads nor fills the page cache.
            #expect(TestDirectory.list(replayOut.path + "/pages/pixabay").isEmpty)
        }

        @Test func replayWithoutARecordedAnswerFailsTheSourceClearly() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let empty = CrawlDirectory()
            let out = CrawlDirectory()
            let run = try await runCrawl(Self.sources(feed), out: out.path) { $0.replayDirectory = empty.path }
            let failure = try #require(run.report("pixabay")?.failure)
            #expect(failure.contains("no recorded response for GET"))
            #expect(!failure.contains("RecKey"))
            #expect(run.report("launches")?.failure?.contains("no recorded response for POST") == true)
            #expect(feed.stats().api == 0 && feed.stats().graphql == 0)
        }

        @Test func pagesTakenFromThePageCacheAreRecordedToo() async throws {
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            let out = CrawlDirectory()
            _ = try await runCrawl(Self.sources(feed), out: out.path)  // fills OUT/pages
            let recording = CrawlDirectory()
            let run = try await runCrawl(Self.sources(feed), out: out.path) { $0.recordDirectory = recording.path }
            #expect(run.report("pixabay")?.cachedPages == 3)
            #expect(TestDirectory.list(recording.path + "/pixabay").count == 3)
        }
    }
}
