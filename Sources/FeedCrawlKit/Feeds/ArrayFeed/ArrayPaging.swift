/// Page-number paging for a JSON array feed (pure state machine).
///
/// Fetch `firstPage` (default 1), pass its items to `accept(_:)`, follow the step to `page` (every
/// `stride` pages: a shard reads every Nth page). Items are de-duplicated by id (`newItems`).
/// Stops:
/// - `.done` on an empty or short page (`count < perPage`), or past page `requestedPages`;
/// - `.stop(warning:)` when a page after the first brings only ids already seen (the server
///   ignores the page parameter); that page's items are discarded.
/// Once finished, further calls return the same step with no new items.
public struct ArrayPaging: Sendable, Equatable, FeedPager {
    /// Most pages to fetch (at least 0).
    public let requestedPages: Int
    /// Page size the query asks for (at least 1).
    public let perPage: Int
    /// Pages accepted so far.
    public private(set) var pagesAccepted = 0
    /// The page `accept` reads next.
    public private(set) var page: Int
    /// Pages between two reads (1 unless sharded).
    public let stride: Int
    /// New items of the last accepted page.
    public private(set) var newItems: [FeedItem] = []
    /// The terminal step once reached.
    public private(set) var finished: PageStep?
    private var deduper = FeedItemDeduper()

    /// Creates the paging state; `firstPage` and `stride` default to 1.
    public init(requestedPages: Int, perPage: Int, firstPage: Int = 1, stride: Int = 1) {
        self.requestedPages = max(requestedPages, 0)
        self.perPage = max(perPage, 1)
        page = max(firstPage, 1)
        self.stride = max(stride, 1)
    }

    /// Whether `page` is to be read at all (within `requestedPages`).
    public var hasPage: Bool { finished == nil && page <= requestedPages }

    func items(of page: [FeedItem]) -> [FeedItem] { page }

    /// Digests the items of page `page`.
    public mutating func accept(_ items: [FeedItem]) -> PageStep {
        if let finished {
            newItems = []
            return finished
        }
        pagesAccepted += 1
        if pagesAccepted > 1, deduper.bringsOnlySeenIDs(items) {
            newItems = []
            return finish(.stop(warning: "page \(page) brought only ids already seen "
                + "(the server seems to ignore the page parameter); stopping"))
        }
        newItems = deduper.admit(items)
        if ArrayPage.isLastPage(itemCount: items.count, perPage: perPage) || page + stride > requestedPages {
            return finish(.done)
        }
        page += stride
        return .next
    }

    private mutating func finish(_ step: PageStep) -> PageStep {
        finished = step
        return step
    }
}
