import FoundationEssentials

/// Items listed this run that are not recorded yet, by token (internal; guarded by the
/// pipeline's lock). An item is complete once its images are all resolved, its registration is
/// over and, with launch details, its details have come. Only items in flight are held: the
/// pipeline's bounds keep them to a few hundred.
struct PendingItems {
    /// One item in flight. A reference, so that the dictionary, the pipeline's `recording` list
    /// and a batch being journaled share it instead of copying the item (its texts and images)
    /// at every step; only the pipeline's lock holder changes it, and nothing changes it once
    /// it is complete.
    final class Pending: @unchecked Sendable {
        var item: ManifestItem
        /// The page it was listed on (`PageRecorder.open`'s token).
        let page: Int
        var unresolved: Int
        /// Bit i set: image i has its outcome.
        var resolved: UInt64 = 0
        var registering = true
        var awaitingDetails: Bool
        /// Images whose URL this item was the first to get an outcome for (see `FinishedURLs`).
        var owned: [(image: Int, key: UInt64)] = []

        init(item: ManifestItem, page: Int, unresolved: Int, awaitingDetails: Bool) {
            self.item = item
            self.page = page
            self.unresolved = unresolved
            self.awaitingDetails = awaitingDetails
        }

        func resolve(_ index: Int, _ outcome: ImageRecord.Outcome) {
            guard index < min(item.images.count, 64), resolved & (1 << UInt64(index)) == 0 else { return }
            item.images[index].outcome = outcome
            resolved |= 1 << UInt64(index)
            unresolved -= 1
        }

        /// Whether the item can be recorded.
        var isComplete: Bool { !registering && unresolved == 0 && !awaitingDetails }

        /// Image `index`.
        func image(_ index: Int) -> ImageRecord? {
            index < item.images.count ? item.images[index] : nil
        }
    }

    private var pending: [Int: Pending] = [:]
    private var nextToken = 0

    /// Registers `feedItem`; its images start as `cancelled` ("no outcome before the run ended")
    /// until resolved.
    mutating func add(_ feedItem: FeedItem, page: Int, awaitingDetails: Bool, seen: Date) -> Int {
        let token = nextToken
        nextToken += 1
        var item = ManifestItem(
            source: feedItem.source, id: feedItem.id, page: feedItem.page, title: feedItem.title,
            author: feedItem.author, pageURL: feedItem.pageURL.map(URLCheck.removingUserInfo), lastSeen: seen)
        // A URL's `user:password@` is used for its request, never recorded.
        item.images = feedItem.images.prefix(64).map {
            ImageRecord(variant: $0.variant, url: URLCheck.removingUserInfo($0.url), status: .cancelled,
                        error: "no outcome before the run ended")
        }
        pending[token] = Pending(item: item, page: page, unresolved: item.images.count, awaitingDetails: awaitingDetails)
        return token
    }

    /// Marks the item's listing as unusable: it is recorded `rejected` with `problem`, without
    /// images.
    mutating func setError(_ problem: String, token: Int) {
        pending[token]?.item.error = problem
        pending[token]?.item.images = []
        pending[token]?.unresolved = 0
        pending[token]?.awaitingDetails = false
    }

    /// Gives image `index` of item `token` its outcome; an image already resolved keeps its first.
    mutating func resolve(token: Int, image index: Int, outcome: ImageRecord.Outcome) {
        pending[token]?.resolve(index, outcome)
    }

    /// Records that item `token` holds the outcome of the URL with `key` (image `index`).
    mutating func own(token: Int, image index: Int, key: UInt64) {
        pending[token]?.owned.append((index, key))
    }

    mutating func setDetails(_ details: LaunchDetails, token: Int) {
        pending[token]?.item.details = details
        pending[token]?.awaitingDetails = false
    }

    /// Ends item `token`'s registration.
    mutating func close(_ token: Int) {
        pending[token]?.registering = false
    }

    /// The source of item `token`, while the item is pending.
    func source(token: Int) -> String? {
        pending[token]?.item.source
    }

    /// Who image `index` of item `token` is, while the item is pending: source, id, variant.
    func owner(token: Int, index: Int, sharedBy: Int) -> ImageOwner? {
        guard let pending = pending[token], let image = pending.image(index) ?? nil else { return nil }
        return ImageOwner(source: pending.item.source, id: pending.item.id, variant: image.variant, sharedBy: sharedBy)
    }

    /// Image `index` of item `token`, while the item is pending.
    func image(token: Int, index: Int) -> ImageRecord? {
        pending[token]?.image(index) ?? nil
    }

    /// Removes and returns item `token` when it is complete.
    mutating func takeIfComplete(_ token: Int) -> Pending? {
        guard pending[token]?.isComplete == true else { return nil }
        return pending.removeValue(forKey: token)
    }

    /// Removes and returns every item still pending (the run is over), in token order.
    mutating func takeAll() -> [(token: Int, pending: Pending)] {
        let all = pending.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        pending.removeAll()
        return all
    }
}
