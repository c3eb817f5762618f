import FoundationEssentials

/// This run's items and their outcomes. Each item is registered once and resolved once; every
/// resolution is journaled (flushed in small batches) so a killed run loses at most a batch.
final class CrawlLedger: @unchecked Sendable {
    private let lock = Lock()
    private var items: [ManifestItem] = []
    private var resolved: [Bool] = []
    private var tokens: [ItemKey: Int] = [:]
    private var journal: Journal?
    private var journalError: String?
    private var lastFlush = ContinuousClock.now
    private let runStarted: Date
    private let events: @Sendable (CrawlEvent) -> Void

    /// Journal batches: flushed after this many outcomes or this long, whichever comes first.
    static let flushEvery = 32
    static let flushInterval: Duration = .milliseconds(200)

    init(journal: Journal?, runStarted: Date, events: @escaping @Sendable (CrawlEvent) -> Void) {
        self.journal = journal
        self.runStarted = runStarted
        self.events = events
    }

    /// Subscriber tokens at or above this stand for the large patch (launch details) of the
    /// item `token - patchTokenBase`.
    static let patchTokenBase = 1 << 40

    /// Adds a feed item, unresolved, and returns its token; nil when this run already listed
    /// an item with the same source and id (the first listing wins).
    func register(_ feedItem: FeedItem) -> Int? {
        var item = ManifestItem(
            source: feedItem.source, id: feedItem.id, page: feedItem.page, title: feedItem.title,
            imageURL: feedItem.imageURL, status: .cancelled)
        item.author = feedItem.author
        item.lastSeen = runStarted
        return lock.withLock {
            guard tokens[item.key] == nil else { return nil }
            tokens[item.key] = items.count
            items.append(item)
            resolved.append(false)
            return items.count - 1
        }
    }

    /// Sets the launch details of item `token` (journaled once the item has its outcome).
    func setDetails(_ details: LaunchDetails, token: Int) {
        lock.withLock {
            guard token >= 0 && token < items.count else { return }
            items[token].details = details
            if resolved[token] { journalLocked(token) }
        }
    }

    /// Gives every item in `tokens` the outcome; an item already resolved keeps its first one.
    func resolve(_ tokens: [Int], with outcome: ImageOutcome) {
        lock.withLock {
            for token in tokens {
                if token >= Self.patchTokenBase {
                    applyPatchLocked(outcome.bounded(), token: token - Self.patchTokenBase)
                    continue
                }
                guard token >= 0 && token < items.count && !resolved[token] else { continue }
                resolved[token] = true
                apply(outcome.bounded(), to: &items[token])
                events(.itemFinished(source: items[token].source, status: outcome.status))
                journalLocked(token)
            }
            flushIfDueLocked()
        }
    }

    private func applyPatchLocked(_ outcome: ImageOutcome, token: Int) {
        guard token >= 0 && token < items.count else { return }
        var details = items[token].details ?? LaunchDetails()
        details.largePatchStatus = outcome.status
        details.largePatchFile = outcome.file
        details.largePatchSHA256 = outcome.sha256
        details.largePatchBytes = outcome.bytes
        details.largePatchETag = outcome.etag
        details.largePatchLastModified = outcome.lastModified
        details.largePatchFetchedAt = outcome.fetchedAt
        details.largePatchError = outcome.error
        items[token].details = details
        if resolved[token] { journalLocked(token) }
    }

    private func journalLocked(_ token: Int) {
        do {
            try journal?.append(items[token])
        } catch {
            noteJournalErrorLocked(error)
        }
    }

    /// Writes what the journal holds now.
    func flush() {
        lock.withLock { flushLocked() }
    }

    /// The first journal write error, if any (for example a full disk).
    var journalProblem: String? { lock.withLock { journalError } }

    /// All items; any never resolved (which should not happen) are recorded as cancelled.
    func finish() -> [ManifestItem] {
        lock.withLock {
            flushLocked()
            for index in items.indices where !resolved[index] {
                resolved[index] = true
                items[index].status = .cancelled
                items[index].error = "no outcome before the run ended"
                events(.itemFinished(source: items[index].source, status: .cancelled))
            }
            return items
        }
    }

    private func apply(_ outcome: ImageOutcome, to item: inout ManifestItem) {
        item.status = outcome.status
        item.file = outcome.file
        item.bytes = outcome.bytes
        item.sha256 = outcome.sha256
        item.contentType = outcome.contentType
        item.width = outcome.width
        item.height = outcome.height
        item.etag = outcome.etag
        item.lastModified = outcome.lastModified
        item.fetchedAt = outcome.fetchedAt
        item.error = outcome.error
    }

    private func flushIfDueLocked() {
        guard let journal else { return }
        if journal.pendingCount >= Self.flushEvery || ContinuousClock.now - lastFlush >= Self.flushInterval {
            flushLocked()
        }
    }

    private func flushLocked() {
        guard let journal else { return }
        lastFlush = ContinuousClock.now
        do {
            try journal.flush()
        } catch {
            noteJournalErrorLocked(error)
        }
    }

    private func noteJournalErrorLocked(_ error: any Error) {
        guard journalError == nil else { return }
        journalError = "journal: \(error)"
        events(.warning(source: "", message: "journal: \(error)"))
    }
}
