/// Page-number paging for a Pixabay-style search (pure).
///
/// Fetch page 1, feed its `totalHits` to `accept(totalHits:)`, then the pages `shouldFetch` allows.
/// The last page is `min(requestedPages, ceil(totalHits / perPage))`; 0 hits → 0 pages.
/// Pixabay caps `totalHits` (500 by default), and asking past the last page is a 400 error,
/// so never page beyond `lastPage`.
public struct PixabayPaging: Sendable, Equatable {
    /// Pages the user asked for (at least 0).
    public let requestedPages: Int
    /// Hits per page, as sent in `per_page` (at least 1).
    public let perPage: Int
    /// Last page to fetch; `nil` until the first page's `totalHits` was accepted.
    public private(set) var lastPage: Int?

    /// Creates the paging state; negative `requestedPages` count as 0, `perPage` below 1 as 1.
    public init(requestedPages: Int, perPage: Int) {
        self.requestedPages = max(requestedPages, 0)
        self.perPage = max(perPage, 1)
    }

    /// `min(requestedPages, ceil(totalHits / perPage))`; 0 when `totalHits <= 0`.
    public func lastPage(totalHits: Int) -> Int {
        guard totalHits > 0 else { return 0 }
        let pages = totalHits / perPage + (totalHits % perPage == 0 ? 0 : 1)
        return min(requestedPages, pages)
    }

    /// Records `totalHits` from a page. A later, smaller `totalHits` can lower `lastPage`;
    /// it never rises above the first answer. Returns the new `lastPage`.
    @discardableResult
    public mutating func accept(totalHits: Int) -> Int {
        let computed = lastPage(totalHits: totalHits)
        let new = lastPage.map { min($0, computed) } ?? computed
        lastPage = new
        return new
    }

    /// Records a `pageOutOfRange` answer for `page`: the last page is at most `page - 1`.
    public mutating func pageOutOfRange(_ page: Int) {
        let bound = max(page - 1, 0)
        lastPage = min(lastPage ?? bound, bound)
    }

    /// True when `page` is within `1...lastPage` (or, before `accept`, when it is page 1
    /// and at least one page was requested).
    public func shouldFetch(page: Int) -> Bool {
        guard let lastPage else { return page == 1 && requestedPages >= 1 }
        return page >= 1 && page <= lastPage
    }
}
