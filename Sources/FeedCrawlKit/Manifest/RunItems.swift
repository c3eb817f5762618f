import FoundationEssentials
import FeedCrawlSupport

/// This run's finished items: each is journaled as it finishes (`Journal`, the item store) and
/// its key goes to an `ItemSorter`, so the end of the run reads them back in manifest order
/// without holding them in memory. Thread-safe.
final class RunItems: @unchecked Sendable {
    /// Start of the run: every item listed gets it as `lastSeen`.
    let runStarted: Date
    let journal: Journal
    private let lock = Lock()
    private let sorter: ItemSorter
    private var journalError: String?
    private let events: @Sendable (CrawlEvent) -> Void

    init(journal: Journal, spill: Spill?, runStarted: Date, events: @escaping @Sendable (CrawlEvent) -> Void) {
        self.journal = journal
        self.runStarted = runStarted
        self.events = events
        sorter = ItemSorter(order: .key, spill: spill)
    }

    /// Items recorded.
    var count: Int { lock.withLock { sorter.count } }

    /// Records a finished item; returns where its line is.
    @discardableResult
    func record(_ item: ManifestItem) -> ItemLocation {
        let location = journal.append(item)
        lock.withLock { sorter.add(source: item.source, id: item.id, page: item.page, location: location) }
        events(.itemFinished(source: item.source, status: item.status))
        return location
    }

    /// Flushes the journal when `force`, or when it is due (32 lines waiting, or 200 ms).
    func flush(force: Bool) {
        guard force || journal.flushIsDue else { return }
        do {
            try journal.flush()
        } catch {
            let first: Bool = lock.withLock {
                guard journalError == nil else { return false }
                journalError = "journal: \(error)"
                return true
            }
            if first { events(.warning(source: "", message: "journal: \(error)")) }
        }
    }

    /// The first journal write error, if any (for example a full disk).
    var journalProblem: String? { lock.withLock { journalError } }

    /// The item whose line starts at `offset` in the journal; nil when it cannot be read back.
    func item(startingAt offset: Int64) -> ManifestItem? {
        guard let line = try? journal.line(startingAt: offset) else { return nil }
        return try? ItemJSON.decode(line)
    }

    /// Every recorded item's key and location, in manifest order (duplicates of a key adjacent,
    /// in the order they were recorded). Call once, after the last `record`.
    func sorted() -> ItemSorter.Merged {
        lock.withLock { sorter.sorted() }
    }
}
