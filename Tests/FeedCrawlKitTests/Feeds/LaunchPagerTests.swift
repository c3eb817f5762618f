import Testing
@testable import FeedCrawlKit

@Suite struct LaunchPagerTests {
    /// Crawls `server` like the crawler would; returns the collected items, the final step
    /// and the number of requests made.
    private func crawl(_ server: TutorialServerModel, pageSize: Int, pageLimit: Int) throws
        -> (items: [FeedItem], step: LaunchPager.Step, requests: Int)
    {
        var pager = LaunchPager(pageLimit: pageLimit)
        var cursor: String?
        var items: [FeedItem] = []
        for request in 1...1_000 {
            let page = try LaunchesPage.decode(server.body(after: cursor, pageSize: pageSize), page: request)
            let step = pager.accept(page)
            items += pager.newItems
            switch step {
            case .next(let next): cursor = next
            case .done, .stop: return (items, step, request)
            }
        }
        Issue.record("pager never stopped")
        return (items, .done, 1_000)
    }

    @Test func hostedDataInPagesOf20EndsOnHasMoreFalse() throws {
        let result = try crawl(TutorialServerModel(count: 110), pageSize: 20, pageLimit: 100)
        #expect(result.step == .done)
        #expect(result.requests == 6)
        #expect(result.items.count == 110)
        #expect(Set(result.items.map(\.id)).count == 110)
    }

    @Test func duplicateCursorsWouldLoopForeverButThePagerStops() throws {
        // Flights 105 and 109 share a cursor in the hosted data.
        let server = TutorialServerModel(count: 110, sharedCursor: [109: 105])
        for pageSize in [1, 2] {
            let result = try crawl(server, pageSize: pageSize, pageLimit: 500)
            guard case .stop(let warning) = result.step else {
                Issue.record("pageSize \(pageSize): expected a stop, got \(result.step)")
                continue
            }
            #expect(warning.contains("cursor \"1000105\" repeated"), "\(warning)")
            #expect(result.requests < 10)
            #expect(Set(result.items.map(\.id)).count == result.items.count)
            #expect(result.items.map(\.id) == (105...110).reversed().map(String.init))
        }
    }

    @Test func unknownCursorRestartIsDetectedAndThePageDiscarded() throws {
        let before = TutorialServerModel(count: 40, cursorPrefix: "1000")
        let redeployed = TutorialServerModel(count: 40, cursorPrefix: "2000") // every old cursor is unknown now
        var pager = LaunchPager(pageLimit: 10)
        guard case .next(let cursor) = pager.accept(try LaunchesPage.decode(before.body(after: nil), page: 1)) else {
            Issue.record("expected next")
            return
        }
        #expect(pager.newItems.count == 20)
        let step = pager.accept(try LaunchesPage.decode(redeployed.body(after: cursor), page: 2))
        guard case .stop(let warning) = step else {
            Issue.record("expected stop, got \(step)")
            return
        }
        #expect(warning.contains("only ids already seen"))
        #expect(pager.newItems.isEmpty)
        #expect(pager.duplicatesDropped == 20)
    }

    @Test func restartDetectionIgnoresProblemItems() {
        var pager = LaunchPager(pageLimit: 10)
        let first = LaunchesPage(cursor: "c1", hasMore: true, items: [
            FeedItem(source: "launches", id: "1", page: 1),
            FeedItem(source: "launches", id: "page1-index1", page: 1, problem: "launch is null"),
        ])
        #expect(pager.accept(first) == .next(cursor: "c1"))
        // Same page again: the null element gets another synthetic id, but it is still a restart.
        let again = LaunchesPage(cursor: "c9", hasMore: true, items: [
            FeedItem(source: "launches", id: "1", page: 2),
            FeedItem(source: "launches", id: "page2-index1", page: 2, problem: "launch is null"),
        ])
        guard case .stop(let warning) = pager.accept(again) else {
            Issue.record("expected stop")
            return
        }
        #expect(warning.contains("only ids already seen"))
        // A page made only of problem items is not a restart.
        var other = LaunchPager(pageLimit: 10)
        _ = other.accept(first)
        let nulls = LaunchesPage(cursor: "c2", hasMore: true, items: [
            FeedItem(source: "launches", id: "page2-index0", page: 2, problem: "launch is null"),
        ])
        #expect(other.accept(nulls) == .next(cursor: "c2"))
    }

    @Test func pageLimitEndsTheCrawl() throws {
        let result = try crawl(TutorialServerModel(count: 110), pageSize: 20, pageLimit: 2)
        #expect(result.step == .done)
        #expect(result.requests == 2)
        #expect(result.items.count == 40)
    }

    @Test func hasMoreWithoutCursorStops() {
        var pager = LaunchPager(pageLimit: 5)
        let step = pager.accept(LaunchesPage(cursor: nil, hasMore: true, items: [FeedItem(source: "launches", id: "1", page: 1)]))
        guard case .stop(let warning) = step else {
            Issue.record("expected stop, got \(step)")
            return
        }
        #expect(warning.contains("no cursor"))
        #expect(pager.newItems.map(\.id) == ["1"]) // the page's items are still delivered
    }

    @Test func duplicateIdsWithinAndAcrossPagesAreDropped() {
        var pager = LaunchPager(pageLimit: 5)
        let item = { (id: String) in FeedItem(source: "launches", id: id, page: 1) }
        #expect(pager.accept(LaunchesPage(cursor: "a", hasMore: true, items: [item("110"), item("110"), item("109")])) == .next(cursor: "a"))
        #expect(pager.newItems.map(\.id) == ["110", "109"])
        #expect(pager.duplicatesDropped == 1)
        #expect(pager.accept(LaunchesPage(cursor: "b", hasMore: false, items: [item("109"), item("108")])) == .done)
        #expect(pager.newItems.map(\.id) == ["108"])
        #expect(pager.seenIDs == ["110", "109", "108"])
    }

    @Test func finishedPagerStaysFinished() {
        var pager = LaunchPager(pageLimit: 5)
        #expect(pager.accept(LaunchesPage(cursor: nil, hasMore: false, items: [FeedItem(source: "launches", id: "1", page: 1)])) == .done)
        #expect(pager.accept(LaunchesPage(cursor: "x", hasMore: true, items: [FeedItem(source: "launches", id: "2", page: 2)])) == .done)
        #expect(pager.newItems.isEmpty)
        #expect(pager.pagesAccepted == 1)
    }
}
