import FoundationEssentials

/// This run's items and their outcomes. Each item is registered once and resolved once; every
/// resolution is journaled (flushed in small batches) so a killed run loses at most a batch.
///
/// Memory: an item waits as a `ManifestItem` only while it is unresolved; resolved items are kept
/// as compact records (`CompactItems`), about 300 bytes each, which move to a spill file in
/// chunks when the ledger is given one.
final class CrawlLedger: @unchecked Sendable {
    private let lock = Lock()
    /// Registered items still waiting for their outcome, by token.
    private var pending: [Int: ManifestItem] = [:]
    /// Per token: where its resolved record is, or `unresolved`.
    private var records: [CompactItems.Ref] = []
    private var store: CompactItems
    private var counts: [ItemStatus: Int] = [:]
    private var downloadedBytes: Int64 = 0
    /// Hashes of the files downloaded this run, so a file shared by several items counts once.
    private var downloadedFiles = Set<Int>()
    /// The first token scheduled with an image URL, by the URL's hash (see `claim`).
    private var firstTokenByURL: [Int: Int] = [:]
    /// Token by source and id: a repeated listing is dropped (the first wins).
    private var tokens: [ItemKey: Int] = [:]
    private var journal: Journal?
    private var journalError: String?
    private var lastFlush = ContinuousClock.now
    private let runStarted: Date
    private let events: @Sendable (CrawlEvent) -> Void

    private static let unresolved = CompactItems.Ref.max

    /// Journal batches: flushed after this many outcomes or this long, whichever comes first.
    static let flushEvery = 32
    static let flushInterval: Duration = .milliseconds(200)

    /// - Parameter store: where resolved items are kept (default: in memory; the crawler gives
    ///   it a `CompactSpill` in the output folder, so memory stays flat however many items).
    init(
        journal: Journal?, runStarted: Date, store: CompactItems = CompactItems(),
        events: @escaping @Sendable (CrawlEvent) -> Void
    ) {
        self.journal = journal
        self.store = store
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
            let key = item.key
            guard tokens[key] == nil else { return nil }
            let token = records.count
            tokens[key] = token
            records.append(Self.unresolved)
            pending[token] = item
            return token
        }
    }

    /// Sets the launch details of item `token` (journaled once the item has its outcome).
    func setDetails(_ details: LaunchDetails, token: Int) {
        lock.withLock {
            updateLocked(token) { $0.details = details }
        }
    }

    /// Gives every item in `tokens` the outcome; an item already resolved keeps its first one.
    /// A patch token (`patchTokenBase` and up) records the outcome of the item's large patch.
    func resolve(_ tokens: [Int], with outcome: ImageOutcome) {
        lock.withLock {
            for token in tokens {
                if token >= Self.patchTokenBase {
                    applyPatchLocked(outcome.bounded(), token: token - Self.patchTokenBase)
                    continue
                }
                guard var item = pending.removeValue(forKey: token) else { continue }
                apply(outcome.bounded(), to: &item)
                events(.itemFinished(source: item.source, status: item.status))
                journalLocked(item)
                records[token] = store.append(item)
                counts[item.status, default: 0] += 1
                // Items that share an image share its one download.
                if item.status == .downloaded, downloadedFiles.insert((item.file ?? "").hashValue).inserted {
                    downloadedBytes += item.bytes ?? 0
                }
            }
            flushIfDueLocked()
        }
    }

    private func applyPatchLocked(_ outcome: ImageOutcome, token: Int) {
        updateLocked(token) { item in
            var details = item.details ?? LaunchDetails()
            details.largePatchStatus = outcome.status
            details.largePatchFile = outcome.file
            details.largePatchSHA256 = outcome.sha256
            details.largePatchBytes = outcome.bytes
            details.largePatchETag = outcome.etag
            details.largePatchLastModified = outcome.lastModified
            details.largePatchFetchedAt = outcome.fetchedAt
            details.largePatchError = outcome.error
            item.details = details
        }
    }

    /// Changes item `token`: in place while it waits for its outcome; once resolved, its record
    /// is rewritten (appended anew; details are rare) and journaled again.
    private func updateLocked(_ token: Int, _ change: (inout ManifestItem) -> Void) {
        guard token >= 0 && token < records.count else { return }
        if var item = pending[token] {
            change(&item)
            pending[token] = item
            return
        }
        guard records[token] != Self.unresolved else { return }
        var item = store.item(records[token])
        change(&item)
        records[token] = store.append(item)
        journalLocked(item)
    }

    private func journalLocked(_ item: ManifestItem) {
        do {
            try journal?.append(item)
        } catch {
            noteJournalErrorLocked(error)
        }
    }

    /// Records `token` as the first item scheduled with image `url` and returns nil, or returns
    /// the earlier token that already claimed the same URL. The crawler uses it so a URL listed
    /// twice is fetched once: the prefetch queue does not remember finished URLs.
    func claim(url: String, token: Int) -> Int? {
        lock.withLock {
            let hash = url.hashValue
            guard let earlier = firstTokenByURL[hash] else {
                firstTokenByURL[hash] = token
                return nil
            }
            // Same hash, different URL (vanishingly rare): not a duplicate; the first keeps the slot.
            return imageURLLocked(earlier) == url ? earlier : nil
        }
    }

    /// The outcome `token` was resolved with, or nil while it is unresolved.
    func outcome(of token: Int) -> ImageOutcome? {
        lock.withLock {
            if token >= Self.patchTokenBase { return patchOutcomeLocked(token - Self.patchTokenBase) }
            guard token >= 0, token < records.count, records[token] != Self.unresolved else { return nil }
            let item = store.item(records[token])
            var outcome = ImageOutcome(status: item.status, error: item.error)
            outcome.file = item.file
            outcome.bytes = item.bytes
            outcome.sha256 = item.sha256
            outcome.contentType = item.contentType
            outcome.width = item.width
            outcome.height = item.height
            outcome.etag = item.etag
            outcome.lastModified = item.lastModified
            outcome.fetchedAt = item.fetchedAt
            return outcome
        }
    }

    /// The large patch outcome of item `token`, or nil while it has none.
    private func patchOutcomeLocked(_ token: Int) -> ImageOutcome? {
        guard let details = itemLocked(token)?.details, let status = details.largePatchStatus else { return nil }
        var outcome = ImageOutcome(status: status, error: details.largePatchError)
        outcome.file = details.largePatchFile
        outcome.bytes = details.largePatchBytes
        outcome.sha256 = details.largePatchSHA256
        outcome.etag = details.largePatchETag
        outcome.lastModified = details.largePatchLastModified
        outcome.fetchedAt = details.largePatchFetchedAt
        return outcome
    }

    /// Item `token` as it stands (pending or resolved).
    private func itemLocked(_ token: Int) -> ManifestItem? {
        if let item = pending[token] { return item }
        guard token >= 0, token < records.count, records[token] != Self.unresolved else { return nil }
        return store.item(records[token])
    }

    /// Writes what the journal holds now.
    func flush() {
        lock.withLock { flushLocked() }
    }

    /// The first journal write error, if any (for example a full disk).
    var journalProblem: String? { lock.withLock { journalError } }

    /// Everything the ledger holds at the end of a run (see `finishContents()`).
    struct Contents {
        fileprivate var store: CompactItems
        fileprivate var refs: [CompactItems.Ref]
        /// Items per status.
        var counts: [ItemStatus: Int]
        /// Bytes of the images downloaded this run.
        var downloadedBytes: Int64

        /// This run's items, decoded one at a time, in registration order.
        var items: LazyMapCollection<[CompactItems.Ref], ManifestItem> {
            let store = self.store
            return refs.lazy.map { store.item($0) }
        }

        /// This run's items plus `carried` (earlier items it did not see, kept as they are), in
        /// `ManifestItem.stableOrder`, decoded one at a time as they are read. A carried item with
        /// the key of one of this run's items is left out (the run's wins); the ledger already
        /// holds each key once.
        func sortedItems(mergedWith carried: [ManifestItem]) -> SortedItems {
            var entries: [SortedItems.Entry] = []
            entries.reserveCapacity(refs.count + carried.count)
            // Keys of the carried items only: a set as large as the previous manifest.
            var carriedKeys = Set<ItemKey>(minimumCapacity: carried.count)
            for item in carried { carriedKeys.insert(item.key) }
            var superseded = Set<ItemKey>()
            for (index, ref) in refs.enumerated() {
                let item = store.listing(ref)
                let key = ItemKey(source: item.source, id: item.id)
                if !carriedKeys.isEmpty, carriedKeys.contains(key) { superseded.insert(key) }
                entries.append(.init(source: item.source, page: item.page, id: item.id, index: index))
            }
            carriedKeys = []
            var seenCarried = Set<ItemKey>()
            for (index, item) in carried.enumerated()
            where !superseded.contains(item.key) && seenCarried.insert(item.key).inserted {
                entries.append(.init(source: item.source, page: item.page, id: item.id, index: -1 - index))
            }
            entries.sort { a, b in
                if a.source != b.source { return a.source < b.source }
                if a.page != b.page { return a.page < b.page }
                return ManifestItem.idOrder(a.id, b.id)
            }
            return SortedItems(entries: entries, store: store, refs: refs, carried: carried)
        }
    }

    /// Items in `ManifestItem.stableOrder`, each decoded from its compact record when read.
    struct SortedItems: RandomAccessCollection {
        struct Entry {
            var source: String
            var page: Int
            var id: String
            /// Index into `refs` (>= 0) or into `carried` (-1 - index).
            var index: Int
        }

        fileprivate let entries: [Entry]
        fileprivate let store: CompactItems
        fileprivate let refs: [CompactItems.Ref]
        fileprivate let carried: [ManifestItem]

        var startIndex: Int { 0 }
        var endIndex: Int { entries.count }

        subscript(position: Int) -> ManifestItem {
            let index = entries[position].index
            return index >= 0 ? store.item(refs[index]) : carried[-1 - index]
        }

        /// Each item's source and page, without decoding it.
        var keys: some Sequence<(String, Int)> { entries.lazy.map { ($0.source, $0.page) } }
    }

    /// Ends the run: items never resolved (which should not happen) are recorded as cancelled,
    /// the journal is flushed, and the items are handed over compactly.
    func finishContents() -> Contents {
        lock.withLock {
            flushLocked()
            for token in pending.keys.sorted() {
                guard var item = pending.removeValue(forKey: token) else { continue }
                item.status = .cancelled
                item.error = "no outcome before the run ended"
                events(.itemFinished(source: item.source, status: .cancelled))
                records[token] = store.append(item)
                counts[.cancelled, default: 0] += 1
            }
            return Contents(store: store, refs: records, counts: counts, downloadedBytes: downloadedBytes)
        }
    }

    /// All items, in registration order; see `finishContents()`, which does not materialize them.
    func finish() -> [ManifestItem] {
        Array(finishContents().items)
    }

    private func imageURLLocked(_ token: Int) -> String? {
        if token >= Self.patchTokenBase { return itemLocked(token - Self.patchTokenBase)?.details?.largePatchURL }
        return itemLocked(token)?.imageURL
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
