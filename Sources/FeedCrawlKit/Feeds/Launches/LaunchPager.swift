/// Cursor paging for the launches feed (pure state machine).
///
/// Start with cursor `nil`; after each page call `accept(_:)` and follow the step. Items are
/// de-duplicated by id: the page's new items are in `newItems` after each call. Stops:
/// - `.done` when `hasMore` is false, or `pageLimit` pages were accepted;
/// - `.stop(warning:)` when a page brings only ids already seen (the server silently
///   restarts from page 1 on an unknown cursor; that page's items are discarded), when a
///   cursor repeats (the hosted data has duplicate cursors, which loop forever with small
///   page sizes), or when `hasMore` is true without a cursor.
/// Once finished, further calls return the same step with no new items.
public struct LaunchPager: Sendable, Equatable {
    /// What to do after a page.
    public enum Step: Sendable, Equatable {
        /// Fetch the next page with this cursor (`after`).
        case next(cursor: String)
        /// Normal end.
        case done
        /// Abnormal end, with a one-line warning for the log and manifest.
        case stop(warning: String)
    }

    /// Most pages to accept (at least 0).
    public let pageLimit: Int
    /// Pages accepted so far.
    public private(set) var pagesAccepted = 0
    /// New (not yet seen) items of the last accepted page, in order.
    public private(set) var newItems: [FeedItem] = []
    /// Items of the last accepted page dropped as duplicates.
    public private(set) var duplicatesDropped = 0
    /// Cursors returned so far.
    public private(set) var seenCursors: Set<String> = []
    /// The terminal step once reached.
    public private(set) var finished: Step?
    private var deduper = FeedItemDeduper()

    /// Creates a pager that accepts at most `pageLimit` pages (negative counts as 0).
    public init(pageLimit: Int) {
        self.pageLimit = max(pageLimit, 0)
    }

    /// Ids seen so far.
    public var seenIDs: Set<String> { deduper.seenIDs }

    /// Digests one page and says what to do next.
    public mutating func accept(_ page: LaunchesPage) -> Step {
        if let finished {
            newItems = []
            duplicatesDropped = 0
            return finished
        }
        pagesAccepted += 1
        if pagesAccepted > 1, deduper.bringsOnlySeenIDs(page.items) {
            newItems = []
            duplicatesDropped = page.items.count
            return finish(.stop(warning: "launches page \(pagesAccepted) brought only ids already seen "
                + "(the server restarts from page 1 on an unknown cursor); stopping"))
        }
        newItems = deduper.admit(page.items)
        duplicatesDropped = page.items.count - newItems.count
        if !page.hasMore { return finish(.done) }
        if pagesAccepted >= pageLimit { return finish(.done) }
        guard let cursor = page.cursor, !cursor.isEmpty else {
            return finish(.stop(warning: "launches page \(pagesAccepted) says hasMore but has no cursor; stopping"))
        }
        guard seenCursors.insert(cursor).inserted else {
            let shown = FeedText.clip(FeedText.collapsingControls(cursor), to: 80)
            return finish(.stop(warning: "launches cursor \"\(shown)\" repeated on page \(pagesAccepted); "
                + "stopping to avoid a loop"))
        }
        return .next(cursor: cursor)
    }

    private mutating func finish(_ step: Step) -> Step {
        finished = step
        return step
    }
}
