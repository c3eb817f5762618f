import FeedCrawlSupport
import FoundationEssentials

/// What the archive knows of one source's feed pages, as the crawl asks it page by page: a page
/// whose group in the archive needs no work (`Repository.settleIfUnchanged`: same body, same
/// recipe, nothing to retry, every stored image younger than `--ttl`) is **settled** — listed
/// again without its items being registered, fetched, written or looked up. Otherwise the
/// page's listing (digest, recipe) goes with its items to the pipeline, which journals them as
/// the page's new group.
struct PageLedger: Sendable {
    /// The archive (nil: nothing archived, no page settles).
    let archive: Repository?
    let source: String
    /// `GroupRecipe` of what this run asks of the source's pages.
    let recipe: String
    /// Start of the run, milliseconds since 1970.
    let runStarted: Int64
    /// `--ttl` in seconds.
    let ttl: Double
    /// What a body is digested as (`CrawlConfiguration.pageIdentity`).
    var identity: @Sendable ([UInt8]) -> [UInt8] = { $0 }

    /// The listing of `page` (number) fetched with `body`, and whether it is settled (then the
    /// caller submits nothing and counts the group's items as listed).
    func listing(page: Int, body: [UInt8]) -> (listing: PageListing, settled: GroupEntry?) {
        let digest = SHA256.hex(identity(body))
        let listing = PageListing(source: source, page: page, digest: digest, recipe: recipe)
        let settled = archive?.settleIfUnchanged(
            source: source, page: page, digest: digest, recipe: recipe, run: runStarted, ttl: ttl)
        return (listing, settled)
    }
}
