import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// Both sources paging through the demo feed over loopback, through the real engine.
@Suite("Crawler paging against DemoFeed")
struct CrawlerPagingTests {
    @Test func pixabayStopsAtTotalHitsAndLaunchesAtHasMore() async throws {
        var options = DemoFeedOptions()
        options.hits = 130
        options.hitsCap = 130
        options.launches = 45
        let out = CrawlDirectory()
        try await withDemoFeed(options: options) { server in
            var configuration = CrawlConfiguration(outDirectory: out.path)
            // Ask for more pages than exist: Pixabay has ceil(130/50) = 3, launches ceil(45/20) = 3.
            configuration.sources = [
                .pixabay(PixabaySourceConfiguration(url: server.pixabayURL, key: "k", pages: 10, perPage: 50)),
                .launches(LaunchesSourceConfiguration(url: server.launchesURL, pages: 10)),
            ]
            let report = try await Crawler(configuration: configuration).run()
            let pixabay = try #require(report.sources.first { $0.name == "pixabay" })
            let launches = try #require(report.sources.first { $0.name == "launches" })
            #expect(pixabay.pages == 3)
            #expect(pixabay.items == 130)
            #expect(launches.pages == 3)
            #expect(launches.items == 45)
            #expect(pixabay.failure == nil && launches.failure == nil)
            #expect(report.itemCount == 175)
            // No page past the end was requested: 3 Pixabay pages, 3 GraphQL pages.
            let stats = server.stats()
            #expect(stats.api == 3)
            #expect(stats.graphql == 3)

            let manifest = try await archivedManifest(out.path)
            let pages = Set(manifest.items.filter { $0.source == "pixabay" }.map(\.page))
            #expect(pages == [1, 2, 3])
            let launchIDs = manifest.items.filter { $0.source == "launches" }.map(\.id)
            #expect(Set(launchIDs).count == 45)
            // Every image the server lists is in the cache with the same hash.
            let hashes = Set(manifest.items.flatMap(\.images).compactMap(\.sha256))
            for expected in server.expectedImages {
                #expect(hashes.contains(expected.sha256Hex), "missing \(expected.url)")
            }
        }
    }

    @Test func pagesLimitIsHonoured() async throws {
        let out = CrawlDirectory()
        try await withDemoFeed { server in
            var configuration = CrawlConfiguration(outDirectory: out.path)
            configuration.sources = [
                .pixabay(PixabaySourceConfiguration(url: server.pixabayURL, key: "k", pages: 2, perPage: 30)),
                .launches(LaunchesSourceConfiguration(url: server.launchesURL, pages: 2)),
            ]
            let report = try await Crawler(configuration: configuration).run()
            #expect(report.sources.map(\.pages) == [2, 2])
            #expect(report.sources.map(\.items) == [60, 40])
            #expect(server.stats().api == 2)
            #expect(server.stats().graphql == 2)
        }
    }
}
