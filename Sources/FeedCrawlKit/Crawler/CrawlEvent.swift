/// What a crawl reports while it runs, for progress displays and logs.
/// Text in events has secrets removed; it may still hold untrusted feed text.
public enum CrawlEvent: Sendable {
    /// A feed page was fetched and parsed.
    case pageFetched(source: String, page: Int, items: Int)
    /// A source stopped early, or something surprising happened that did not stop it.
    case warning(source: String, message: String)
    /// A source could not be crawled at all.
    case sourceFailed(source: String, message: String)
    /// An image request ended (one per URL, not per item).
    case imageFinished(url: String, status: ItemStatus, bytes: Int64)
    /// A feed or image request is retried after `delay` seconds.
    case retrying(url: String, attempt: Int, delay: Double, reason: String)
}
