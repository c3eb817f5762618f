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
        var listing: PageListing
        var waiting: Int
        var registering = true
        var items: [ManifestItem] = []
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var pages: [Int: Open] = [:]
    private var nextToken = 0
    private var recorded = 0
    private var failure: String?

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
            pages[token] = Open(listing: listing, waiting: items)
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

    /// Records a finished item of page `token`.
    func record(_ item: ManifestItem, page token: Int) {
        events(.itemFinished(source: item.source, status: item.status))
        let complete: Open? = lock.withLock {
            recorded += 1
            guard pages[token] != nil else { return nil }
            pages[token]!.items.append(item)
            pages[token]!.waiting -= 1
            return takeIfComplete(token)
        }
        if let complete { append(complete) }
    }

    /// Journals every page still open (the run is over: their missing items were recorded
    /// cancelled meanwhile, or never came).
    func closeAll() {
        let open: [Open] = lock.withLock {
            defer { pages.removeAll() }
            return pages.sorted { $0.key < $1.key }.map(\.value)
        }
        for page in open where !page.items.isEmpty { append(page) }
    }

    /// Items recorded.
    var count: Int { lock.withLock { recorded } }

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
            try journal.append(
                source: page.listing.source, page: page.listing.page, digest: page.listing.digest,
                recipe: page.listing.recipe, items: page.items)
        } catch {
            lock.withLock { if failure == nil { failure = "journal: \(error)" } }
        }
    }
}
