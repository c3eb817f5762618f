import Testing
@testable import FeedCrawlKit

@Suite struct FeedItemDeduperTests {
    @Test func admitsFirstOccurrencesOnly() {
        var deduper = FeedItemDeduper()
        let a = FeedItem(source: "pixabay", id: "1", page: 1)
        let b = FeedItem(source: "pixabay", id: "2", page: 1)
        #expect(deduper.admit([a, b, a]) == [a, b])
        #expect(deduper.admit([FeedItem(source: "pixabay", id: "2", page: 2), FeedItem(source: "pixabay", id: "3", page: 2)]).map(\.id) == ["3"])
        #expect(deduper.seenIDs.contains("3"))
        #expect(!deduper.seenIDs.contains("4"))
    }

    @Test func onlySeenIDs() {
        var deduper = FeedItemDeduper()
        _ = deduper.admit([FeedItem(source: "s", id: "1", page: 1)])
        #expect(deduper.bringsOnlySeenIDs([FeedItem(source: "s", id: "1", page: 2)]))
        #expect(!deduper.bringsOnlySeenIDs([]))
        #expect(!deduper.bringsOnlySeenIDs([FeedItem(source: "s", id: "1", page: 2), FeedItem(source: "s", id: "2", page: 2)]))
        #expect(!deduper.bringsOnlySeenIDs([FeedItem(source: "s", id: "page2-index0", page: 2, problem: "missing id")]))
    }
}
