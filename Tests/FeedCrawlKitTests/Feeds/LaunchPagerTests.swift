import Testing
@testable import FeedCrawlKit

@Suite struct LaunchPagerTests {
    /// Crawls `server` like the crawler would; returns the collected items, the final step
    /// and the number of requests made.
    private func crawl(_ server: TutorialServerModel, pageSize: Int, pageLimit: Int) throws
        -> (items: [FeedItem], step: PageStep, requests: Int)
    {
        var pager = LaunchPager(pageLimit: pageLimit)
        var cursor: String?
        var items: [FeedItem] = []
        for request in 1...1_000 {
            let page = try LaunchesPage.decode(server.body(after: cursor, pageSize: pageSize), page: request)
            let step = pager.accept(page)
            items += pager.newItems
            switch step {
            case .next: cursor = pager.cursor
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
            #expect(warning.contains("cursor \"1000105\", already sent for page"), "\(warning)")
            #expect(result.requests < 10)
            #expect(Set(result.items.map(\.id)).count == result.items.count)
            #expect(result.items.map(\.id) == (105...110).reversed().map(String.init))
        }
    }

    @Test func sharedCursorsFarApartStillReachEveryLaunch() throws {
        // Page 2 ends on launch 71, whose cursor is launch 105's: the tutorial's server answers
        // the next page after 105 (a page of launches already seen); going on reaches all 110.
        let server = TutorialServerModel(count: 110, sharedCursor: [71: 105])
        let result = try crawl(server, pageSize: 20, pageLimit: 100)
        #expect(result.step == .done)
        #expect(result.requests == 8)
        #expect(result.items.count == 110)
        #expect(Set(result.items.map(\.id)).count == 110)
        // Pages of 3 or 6 bring duplicates (114 launches for 110): dropped, none lost.
        for pageSize in [3, 6] {
            let small = try crawl(TutorialServerModel(count: 110, sharedCursor: [109: 105]), pageSize: pageSize, pageLimit: 500)
            #expect(small.step == .done)
            #expect(Set(small.items.map(\.id)).count == 110)
            #expect(small.items.count == 110)
        }
    }

    @Test func unknownCursorRestartStopsOnTheCursorAlreadySent() throws {
        // The server restarts from page 1 on a cursor it does not know: page 1's cursor again.
        let server = TutorialServerModel(count: 40)
        var pager = LaunchPager(pageLimit: 10)
        let first = try LaunchesPage.decode(server.body(after: nil), page: 1)
        #expect(pager.accept(first) == .next)
        #expect(pager.cursor == "100021")
        let step = pager.accept(first)
        guard case .stop(let warning) = step else {
            Issue.record("expected stop, got \(step)")
            return
        }
        #expect(warning == "launches page 2 returned cursor \"100021\", the cursor just sent; stopping to avoid a loop")
        #expect(pager.newItems.isEmpty)
        #expect(pager.duplicatesDropped == 20)
    }

    @Test func aPageOfIdsAlreadySeenIsNotAnEnd() throws {
        var pager = LaunchPager(pageLimit: 10)
        let item = { (id: String) in FeedItem(source: "launches", id: id, page: 1) }
        #expect(pager.accept(LaunchesPage(cursor: "a", hasMore: true, items: [item("3"), item("2")])) == .next)
        #expect(pager.cursor == "a")
        #expect(pager.accept(LaunchesPage(cursor: "b", hasMore: true, items: [item("3"), item("2")])) == .next)
        #expect(pager.cursor == "b")
        #expect(pager.newItems.isEmpty)
        #expect(pager.accept(LaunchesPage(cursor: "c", hasMore: false, items: [item("1")])) == .done)
        #expect(pager.newItems.map(\.id) == ["1"])
    }

    @Test func anEmptyPageStopsWhateverHasMoreSays() {
        var pager = LaunchPager(pageLimit: 1000)
        let item = FeedItem(source: "launches", id: "1", page: 1)
        #expect(pager.accept(LaunchesPage(cursor: "a", hasMore: true, items: [item])) == .next)
        #expect(pager.cursor == "a")
        let step = pager.accept(LaunchesPage(cursor: "b", hasMore: true, items: []))
        #expect(step == .stop(warning: "launches page 2 is empty although hasMore is true; stopping"))
        var ended = LaunchPager(pageLimit: 1000)
        #expect(ended.accept(LaunchesPage(cursor: nil, hasMore: false, items: [])) == .done)
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
        #expect(pager.accept(LaunchesPage(cursor: "a", hasMore: true, items: [item("110"), item("110"), item("109")])) == .next)
        #expect(pager.cursor == "a")
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
