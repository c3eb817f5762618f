import Testing
@testable import FeedCrawlKit

@Suite struct PixabayPagingTests {
    @Test(arguments: [
        // (requested, perPage, totalHits, lastPage)
        (5, 100, 500, 5),
        (10, 200, 500, 3),   // 500 cap with per_page 200 → ceil(2.5)
        (30, 20, 500, 25),   // page 26 would be "out of valid range"
        (5, 100, 0, 0),
        (5, 100, 1, 1),
        (5, 100, 100, 1),
        (5, 100, 101, 2),
        (2, 3, 1954, 2),
        (0, 100, 500, 0),
        (5, 100, -3, 0),
        (5, 200, Int.max, 5),
    ])
    func lastPage(requested: Int, perPage: Int, totalHits: Int, expected: Int) {
        #expect(PixabayPaging(requestedPages: requested, perPage: perPage).lastPage(totalHits: totalHits) == expected)
    }

    @Test func pagesAfterTheFirst() {
        var paging = PixabayPaging(requestedPages: 10, perPage: 200)
        #expect(paging.shouldFetch(page: 1))
        #expect(!paging.shouldFetch(page: 2))
        paging.accept(totalHits: 500)
        #expect(paging.lastPage == 3)
        #expect(paging.shouldFetch(page: 2))
        #expect(paging.shouldFetch(page: 3))
        #expect(!paging.shouldFetch(page: 4))
    }

    @Test func zeroHitsMeansNothingMore() {
        var paging = PixabayPaging(requestedPages: 5, perPage: 100)
        #expect(paging.accept(totalHits: 0) == 0)
        #expect(!paging.shouldFetch(page: 1))
    }

    @Test func laterSmallerTotalLowersTheLastPageButNeverRaisesIt() {
        var paging = PixabayPaging(requestedPages: 10, perPage: 20)
        paging.accept(totalHits: 100)
        #expect(paging.lastPage == 5)
        paging.accept(totalHits: 500)
        #expect(paging.lastPage == 5)
        paging.accept(totalHits: 41)
        #expect(paging.lastPage == 3)
    }

    @Test func pageOutOfRangeCapsTheLastPage() {
        var paging = PixabayPaging(requestedPages: 10, perPage: 20)
        paging.accept(totalHits: 500)
        paging.pageOutOfRange(4)
        #expect(paging.lastPage == 3)
        #expect(!paging.shouldFetch(page: 4))
    }
}
