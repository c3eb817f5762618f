import FeedCrawlSupport
import FeedCrawlStorage
import FoundationEssentials

/// A feed page as the run listed it: what its group records besides its items.
struct PageListing: Sendable, Equatable {
    var source: String
    var page: Int
    /// SHA-256 (hex) of the page body; nil when unknown.
    var digest: String?
    /// `GroupRecipe` of what the run asked of the page.
    var recipe: String?
    /// The hash of the request that fetched it (`FeedRequestIdentity.hash`: its kept page's
    /// name), and when its body was fetched (seconds since 1970); nil when unknown.
    var request: String? = nil
    var fetched: Double? = nil
    /// What paging needs of it without decoding it again (the feed type's own text, e.g.
    /// Pixabay's `totalHits=500`); nil when nothing.
    var paging: String? = nil
}

/// This run's finished items, page by page: a page's items are held until its last one is
/// finished, then the page goes to the journal as one group (`RunJournal.append`), so the
/// journal holds whole pages only. Pages in flight are few (the pipeline's bounds keep them to
/// a few hundred items). Thread-safe.
final class PageRecorder: @unchecked Sendable {
    let journal: RunJournal
    /// Start of the run: every item listed gets it as `lastSeen`.
    let runStarted: Date
    private let events: @Sendable (CrawlEvent) -> Void

    private struct Open {
        var token: Int
        var listing: PageListing
        var waiting: Int
        var registering = true
        var items: [ManifestItem] = []
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var pages: [Int: Open] = [:]
    /// The group number each journaled page got.
    private var groups: [Int: UInt32] = [:]
    private var nextToken = 0
    private var recorded = 0
    private var failure: String?
    /// This run's failed and rejected items, at most `maxFailureMarks`, and how many more came.
    private var failureMarks: [FailureMark] = []
    private var unmarkedFailures: [String: Int] = [:]

    /// The most failed or rejected items a run compares with their earlier records (about 60
    /// bytes each): past it, failures count as new.
    static let maxFailureMarks = 100_000

    init(journal: RunJournal, runStarted: Date, events: @escaping @Sendable (CrawlEvent) -> Void) {
        self.journal = journal
        self.runStarted = runStarted
        self.events = events
    }

    /// Opens a page of `items` items; returns its token. `close` it once its items are
    /// registered.
    func open(_ listing: PageListing, items: Int) -> Int {
        lock.withLock {
            let token = nextToken
            nextToken += 1
            // Room for every item at once: a page of 20,000 does not regrow its array a dozen
            // times (each regrowth holds the old and the new array together).
            var open = Open(token: token, listing: listing, waiting: items)
            open.items.reserveCapacity(items)
            pages[token] = open
            return token
        }
    }

    /// Ends the registration of page `token`'s items (it may then be complete).
    func close(_ token: Int) {
        let complete: Open? = lock.withLock {
            pages[token]?.registering = false
            return takeIfComplete(token)
        }
        if let complete { append(complete) }
    }

    /// Records a finished item of page `token`; returns where it is: its page and its place
    /// there (the group keeps the order items are recorded in).
    @discardableResult
    func record(_ item: ManifestItem, page token: Int) -> (page: Int, item: Int) {
        events(.itemFinished(source: item.source, status: item.status))
        let status = item.status
        let mark = status == .failed || status == .rejected ? FailureMark(item) : nil
        let (complete, place): (Open?, Int) = lock.withLock {
            recorded += 1
            if let mark {
                if failureMarks.count < Self.maxFailureMarks {
                    failureMarks.append(mark)
                } else {
                    unmarkedFailures[item.source, default: 0] += 1
                }
            }
            guard pages[token] != nil else { return (nil, 0) }
            let place = pages[token]!.items.count
            pages[token]!.items.append(item)
            pages[token]!.waiting -= 1
            return (takeIfComplete(token), place)
        }
        if let complete { append(complete) }
        return (token, place)
    }

    /// The image at `place` while its page is still open (not journaled yet), else nil.
    func openImage(_ place: FinishedURLs.Place) -> ImageRecord? {
        guard case .recorded(let page, let item, let image) = place else { return nil }
        return lock.withLock {
            guard let open = pages[page], item < open.items.count, image < open.items[item].images.count else { return nil }
            return open.items[item].images[image]
        }
    }

    /// The image at `place`, wherever its page is now (open, or journaled: read back).
    func recordedImage(_ place: FinishedURLs.Place) async -> ImageRecord? {
        guard case .recorded(let page, let item, let image) = place else { return nil }
        if let open = openImage(place) { return open }
        guard let group = lock.withLock({ groups[page] }),
              let found = try? await journal.item(group: group, position: item), image < found.images.count
        else { return nil }
        return found.images[image]
    }

    /// Journals every page still open (the run is over: their missing items were recorded
    /// cancelled meanwhile, or never came).
    func closeAll() {
        let open: [Open] = lock.withLock {
            defer { pages.removeAll() }
            return pages.sorted { $0.key < $1.key }.map(\.value)
        }
        // A page none of whose items was recorded has nothing to keep (its items come again).
        for page in open where !page.items.isEmpty { append(page) }
    }

    /// Items recorded.
    var count: Int { lock.withLock { recorded } }

    /// This run's failed and rejected items (up to `maxFailureMarks`), and how many more each
    /// source had.
    var failures: (marks: [FailureMark], unmarked: [String: Int]) { lock.withLock { (failureMarks, unmarkedFailures) } }

    /// Saves the journal's waiting groups when `force`, or when a flush is due.
    func flush(force: Bool) async {
        guard force || journal.flushIsDue else { return }
        do {
            try await journal.flush()
        } catch {
            let first: Bool = lock.withLock {
                guard failure == nil else { return false }
                failure = "journal: \(error)"
                return true
            }
            if first { events(.warning(source: "", message: "journal: \(error)")) }
        }
    }

    /// The first journal error, if any (for example a full disk).
    var journalProblem: String? { lock.withLock { failure } }

    private func takeIfComplete(_ token: Int) -> Open? {
        guard let page = pages[token], !page.registering, page.waiting <= 0 else { return nil }
        pages.removeValue(forKey: token)
        return page
    }

    private func append(_ page: Open) {
        do {
            let entry = try journal.append(page.listing, items: page.items)
            lock.withLock { groups[page.token] = entry.number }
        } catch {
            lock.withLock { if failure == nil { failure = "journal: \(error)" } }
        }
    }
}
