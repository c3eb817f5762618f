import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// An item a run lists on two pages (a newest-first feed that shifted while the run paged
/// through it) is one item of the archive, counted once, its image fetched once.
extension CrawlerTests {
    @Suite("Items listed twice")
    struct DuplicateListingTests {
        @Test func anItemListedOnTwoPagesIsInTheManifestOnce() async throws {
            // Page 2 repeats hit 5 of page 1 (a newest-first feed that shifted while paging).
            let log = RequestLog()
            let feed = try DemoFeedServer(options: .observing(log) { request in
                guard request.path == "/api/" else { return nil }
                let base = "http://" + (request.header("host") ?? "")
                let page = Int(request.query["page"] ?? "1") ?? 1
                let ids = page == 1 ? Array(1...5) : Array(5...9)
                let hits = ids.map { FeedBodies.hit(id: String($0), preview: base + demoImagePaths[$0]) }
                return FeedBodies.pixabayPage(total: 10, totalHits: 10, hits: hits)
            })
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed, pages: 2, perPage: 5)], out: out.path)
            #expect(run.items("pixabay").map(\.id) == (1...9).map(String.init))
            #expect(run.report.itemCount == 9)
            #expect(run.manifest.run?.counts == ["downloaded": 9])
            #expect(run.items("pixabay").allSatisfy { $0.status == .downloaded })
            #expect(log.count(path: demoImagePaths[5]) == 1, "the repeated item's image is fetched once")
            #expect(try await verifyCache(out.path).isClean)
        }
    }
}
