/// What a crawl reports while it runs, for progress displays and logs.
/// Text in events has secrets removed; it may still hold untrusted feed text.
///
/// Handlers are called from many tasks at once and must be cheap (count under a lock, render
/// elsewhere): they run on the image path.
public enum CrawlEvent: Sendable {
    /// A feed page was fetched and parsed; `items` is the number of new items it listed.
    case pageFetched(source: String, page: Int, items: Int)
    /// A source stopped early, or something surprising happened that did not stop it.
    case warning(source: String, message: String)
    /// A source could not be crawled at all.
    case sourceFailed(source: String, message: String)
    /// A feed or image request is retried after `delay` seconds. `source`: the feed's source, or
    /// for an image the source of the first item waiting for it; nil when unknown (default).
    case retrying(url: String, attempt: Int, delay: Double, reason: String, source: String? = nil)
    /// An image transfer ended, retries included: one per URL actually requested (not for
    /// fresh cache hits or requests cancelled before they started). `url` is redacted; `owner`
    /// names the first item that asked for it (nil, the default, when none is known).
    case imageFetched(url: String, outcome: ImageRecord.Outcome, seconds: Double, owner: ImageOwner? = nil)
    /// A host answered 429 or 503 without `Retry-After`: its transfers were slowed to
    /// `concurrency` at once, `interval` seconds apart (`HostThrottle`). Once per decrease.
    case hostSlowed(host: String, concurrency: Int, interval: Double, status: Int)
    /// Something about the run's storage worth a line in the log: which run lock the store
    /// allows (`detail`: shown with --verbose), a dead run's lock taken over.
    case storage(message: String, detail: Bool)
    /// An item got its outcome. Exactly one per item listed this run, so these events add up
    /// to the run's counts.
    case itemFinished(source: String, status: ItemStatus)
}

/// The item an image transfer was for: the first that asked for the URL, and how many items
/// (images) shared the one transfer.
public struct ImageOwner: Sendable, Equatable {
    /// The item's source name.
    public var source: String
    /// The item's id.
    public var id: String
    /// The image's variant (`preview`, `small`, …).
    public var variant: String
    /// How many images of pending items waited for this transfer (at least 1).
    public var sharedBy: Int

    /// An owner; `sharedBy` defaults to 1.
    public init(source: String, id: String, variant: String, sharedBy: Int = 1) {
        self.source = source
        self.id = id
        self.variant = variant
        self.sharedBy = sharedBy
    }
}
