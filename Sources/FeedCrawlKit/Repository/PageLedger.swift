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

    /// `--page-ttl` in seconds, and whether kept pages are ignored (`--refresh`).
    var pageTTL: Double = 0
    var refresh = false
    /// Whether every page used is recorded (`--record DIR`): a page is then read, never settled
    /// unread, so that the recording holds it (default false).
    var recording = false

    /// The listing of `page` (number) answered by `reply`, and whether it is settled (then the
    /// caller submits nothing and counts the group's items as listed). `paging` is what the
    /// feed type keeps of the page for paging without it (`PageListing.paging`).
    func listing(page: Int, reply: FeedClient.Reply, paging: String? = nil) -> (listing: PageListing, settled: GroupEntry?) {
        let digest = SHA256.hex(identity(reply.response.body))
        var listing = PageListing(source: source, page: page, digest: digest, recipe: recipe)
        listing.request = reply.request.hash
        listing.fetched = reply.fetchedAt
        listing.paging = paging
        let settled = archive?.settleIfUnchanged(
            source: source, page: page, digest: digest, recipe: recipe, run: runStarted, ttl: ttl, fetched: reply.fetchedAt)
        return (listing, settled)
    }

    /// The archive's group of `page` when the page would come from the page cache and is
    /// settled (`Repository.settleKeptPage`): listed again without being read (not listed when
    /// not `listing`, default true: a page another shard lists, read for its paging alone). Nil
    /// when pages are not kept, `--refresh` or `--record`.
    func settledKeptPage(_ page: Int, request: FeedRequestIdentity, listing: Bool = true) -> GroupEntry? {
        guard pageTTL > 0, !refresh, !recording, let archive else { return nil }
        return archive.settleKeptPage(
            source: source, page: page, request: request.hash, pageTTL: pageTTL, recipe: recipe, run: runStarted, ttl: ttl,
            settle: listing)
    }
}
