import FeedCrawlHTTP

/// What a pager says after a page.
public enum PageStep: Sendable, Equatable {
    /// Fetch the pager's next page.
    case next
    /// Normal end.
    case done
    /// Abnormal end, with a one-line warning for the log and manifest.
    case stop(warning: String)
}

/// The pure paging state machine of a feed read one page after another (`walkPages`):
/// `ArrayPaging` (page numbers), `LaunchPager` (cursors).
protocol FeedPager {
    associatedtype Page
    /// The number of the page to read next (1-based).
    var page: Int { get }
    /// New (not yet seen) items of the last accepted page, in order.
    var newItems: [FeedItem] { get }
    /// The items of `page`.
    func items(of page: Page) -> [FeedItem]
    /// Digests one page and says what to do next.
    mutating func accept(_ page: Page) -> PageStep
}

extension FeedCrawlContext: FeedCrawl {
    var context: FeedCrawlContext { self }
}

extension FeedCrawlContext {
    /// Reads a feed one page after another until `pager` ends it, a page cannot be read or the
    /// run is cancelled, and counts it all in `report`: fetches `request` for the pager's next
    /// page, has `read` read the answer (nil: the page failed, and `read` said why in the
    /// report), keeps a 2xx page in the page cache, gives the page to `pager` and its new items
    /// to the pipeline (`awaitingDetails`; default false); `submitted` gets them with their
    /// pipeline tokens (default nothing).
    func walkPages<Pager: FeedPager>(
        _ pager: inout Pager, into report: inout SourceReport, awaitingDetails: Bool = false,
        request: (Pager) -> HTTPRequest,
        read: (FeedClient.Reply, _ number: Int, inout SourceReport) -> Pager.Page?,
        submitted: ([FeedItem], [Int?]) -> Void = { _, _ in }
    ) async {
        var number = pager.page
        do {
            while true {
                number = pager.page
                let reply = try await client.fetch(request(pager))
                guard let page = read(reply, number, &report) else { return }
                if reply.response.isSuccess { await client.keep(reply) }
                if reply.origin == .pageCache { report.cachedPages += 1 }
                let step = pager.accept(page)
                report.pages += 1
                report.items += pager.newItems.count
                client.pageParsed(number, items: pager.items(of: page).count)
                let fresh = pager.newItems
                let tokens = await submit(fresh, page: number, reply: reply, awaitingDetails: awaitingDetails)
                submitted(tokens.isEmpty ? [] : fresh, tokens)
                switch step {
                case .next:
                    continue
                case .done:
                    return
                case .stop(let warning):
                    report.warnings.append(warning)
                    return
                }
            }
        } catch is CancellationError {
            report.cancelled = true
        } catch {
            report.readFailed(page: number, redactor.redact("\(error)"))
        }
    }
}
