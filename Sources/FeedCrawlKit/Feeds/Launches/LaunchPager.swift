/// Cursor paging for the launches feed (pure state machine).
///
/// Start with cursor `nil`; after each page call `accept(_:)` and follow the step (to `cursor`). Items are
/// de-duplicated by id: the page's new items are in `newItems` after each call. A page that
/// brings only ids already seen is not an end: its duplicates are dropped and paging goes on
/// (the tutorial's `paginateResults` starts the next page after the *first* launch whose cursor
/// equals `after`, so a cursor two launches share sends the crawl back, and the pages after
/// it reach the rest). Paging ends on evidence only:
/// - `.done` when `hasMore` is false, or `pageLimit` pages were accepted;
/// - `.stop(warning:)` when the server returns a cursor already sent (the next page would be
///   one already read: a loop), when a page is empty although `hasMore` is true, or when
///   `hasMore` is true without a cursor. Each warning names the page number (and the cursor).
/// Once finished, further calls return the same step with no new items.
public struct LaunchPager: Sendable, Equatable, FeedPager {
    /// Most pages to accept (at least 0).
    public let pageLimit: Int
    /// Pages accepted so far.
    public private(set) var pagesAccepted = 0
    /// The cursor to send (as `after`) for the next page; nil for the first.
    public private(set) var cursor: String?
    /// New (not yet seen) items of the last accepted page, in order.
    public private(set) var newItems: [FeedItem] = []
    /// Items of the last accepted page dropped as duplicates.
    public private(set) var duplicatesDropped = 0
    /// Cursors sent so far (as `after`), with the page each was sent for.
    public private(set) var sentCursors: [String: Int] = [:]
    /// The terminal step once reached.
    public private(set) var finished: PageStep?
    private var deduper = FeedItemDeduper()

    /// Creates a pager that accepts at most `pageLimit` pages (negative counts as 0).
    public init(pageLimit: Int) {
        self.pageLimit = max(pageLimit, 0)
    }

    /// Ids seen so far.
    public var seenIDs: Set<String> { deduper.seenIDs }

    /// The number of the page to read next.
    public var page: Int { pagesAccepted + 1 }

    func items(of page: LaunchesPage) -> [FeedItem] { page.items }

    /// Digests one page and says what to do next.
    public mutating func accept(_ page: LaunchesPage) -> PageStep {
        if let finished {
            newItems = []
            duplicatesDropped = 0
            return finished
        }
        pagesAccepted += 1
        newItems = deduper.admit(page.items)
        duplicatesDropped = page.items.count - newItems.count
        if !page.hasMore { return finish(.done) }
        if page.items.isEmpty {
            return finish(.stop(warning: "launches page \(pagesAccepted) is empty although hasMore is true; stopping"))
        }
        if pagesAccepted >= pageLimit { return finish(.done) }
        guard let cursor = page.cursor, !cursor.isEmpty else {
            return finish(.stop(warning: "launches page \(pagesAccepted) says hasMore but has no cursor; stopping"))
        }
        if let sentFor = sentCursors[cursor] {
            let shown = FeedText.clip(FeedText.collapsingControls(cursor), to: 80)
            let when = sentFor == pagesAccepted ? "the cursor just sent" : "already sent for page \(sentFor)"
            return finish(.stop(warning: "launches page \(pagesAccepted) returned cursor \"\(shown)\", \(when); "
                + "stopping to avoid a loop"))
        }
        sentCursors[cursor] = pagesAccepted + 1
        self.cursor = cursor
        return .next
    }

    private mutating func finish(_ step: PageStep) -> PageStep {
        finished = step
        return step
    }
}
