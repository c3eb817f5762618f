/// Page-number paging for a JSON array feed (pure state machine).
///
/// Fetch page 1, pass its items to `accept(_:)`, follow the step. Items are de-duplicated
/// by id (`newItems`). Stops:
/// - `.done` on an empty or short page (`count < perPage`), or after `requestedPages` pages;
/// - `.stop(warning:)` when a page after the first brings only ids already seen (the server
///   ignores the page parameter); that page's items are discarded.
/// Once finished, further calls return the same step with no new items.
public struct ArrayPaging: Sendable, Equatable {
    /// What to do after a page.
    public enum Step: Sendable, Equatable {
        /// Fetch this page next.
        case next(page: Int)
        /// Normal end.
        case done
        /// Abnormal end, with a one-line warning.
        case stop(warning: String)
    }

    /// Most pages to fetch (at least 0).
    public let requestedPages: Int
    /// Page size the query asks for (at least 1).
    public let perPage: Int
    /// Pages accepted so far.
    public private(set) var pagesAccepted = 0
    /// New items of the last accepted page.
    public private(set) var newItems: [FeedItem] = []
    /// The terminal step once reached.
    public private(set) var finished: Step?
    private var deduper = FeedItemDeduper()

    /// Creates the paging state.
    public init(requestedPages: Int, perPage: Int) {
        self.requestedPages = max(requestedPages, 0)
        self.perPage = max(perPage, 1)
    }

    /// Digests the items of page `pagesAccepted + 1`.
    public mutating func accept(_ items: [FeedItem]) -> Step {
        if let finished {
            newItems = []
            return finished
        }
        pagesAccepted += 1
        if pagesAccepted > 1, deduper.bringsOnlySeenIDs(items) {
            newItems = []
            return finish(.stop(warning: "page \(pagesAccepted) brought only ids already seen "
                + "(the server seems to ignore the page parameter); stopping"))
        }
        newItems = deduper.admit(items)
        if ArrayPage.isLastPage(itemCount: items.count, perPage: perPage) || pagesAccepted >= requestedPages {
            return finish(.done)
        }
        return .next(page: pagesAccepted + 1)
    }

    private mutating func finish(_ step: Step) -> Step {
        finished = step
        return step
    }
}
