import FeedCrawlHTTP

/// Pages through a Pixabay-style search API: page 1 first, then the rest concurrently
/// (bounded), never past `ceil(totalHits / per_page)`. A 400 "page is out of valid range" ends
/// the feed; an invalid key fails the source (no retry); any other bad page is a page error.
struct PixabayCrawl: FeedCrawl {
    let config: PixabaySourceConfiguration
    let context: FeedCrawlContext

    private func owns(_ page: Int) -> Bool {
        shard?.owns(page: page, source: config.name) ?? true
    }

    private enum PageResult: Sendable {
        case page(PixabayPage, reply: FeedClient.Reply)
        /// The archive's group of the page is settled and its kept page unchanged: not read.
        case settled(items: Int, totalHits: Int?)
        case end
        case problem(String)
    }

    struct InvalidKey: Error {}

    func run() async -> SourceReport {
        var report = SourceReport(name: config.name)
        guard config.pages > 0 else { return report }
        var paging = PixabayPaging(requestedPages: config.pages, perPage: config.sentPerPage)
        do {
            switch try await fetchPage(1) {
            case .page(let page, let reply):
                if owns(1) { await record(page, number: 1, reply: reply, into: &report) }
                paging.accept(totalHits: page.totalHits)
            case .settled(let items, let totalHits?):
                if owns(1) { settled(items, number: 1, into: &report) }
                paging.accept(totalHits: totalHits)
            case .settled:
                return report  // a group without its page count is never settled unread
            case .end:
                return report
            case .problem(let reason):
                report.failure = reason
                return report
            }
            guard paging.shouldFetch(page: 2) else { return report }
            try await withThrowingTaskGroup(of: (Int, PageResult).self) { group in
                var next = 2
                var running = 0
                func addNext() {
                    while paging.shouldFetch(page: next) && !owns(next) { next += 1 }
                    guard paging.shouldFetch(page: next) else { return }
                    let number = next
                    next += 1
                    running += 1
                    group.addTask { (number, try await fetchPage(number)) }
                }
                for _ in 0..<max(1, config.pageConcurrency) { addNext() }
                while let (number, result) = try await group.next() {
                    running -= 1
                    // Once cancelled, a page fetched before but not listed yet is not listed:
                    // nothing is logged as fetched after the run was told to stop.
                    try Task.checkCancellation()
                    switch result {
                    case .page(let page, let reply):
                        await record(page, number: number, reply: reply, into: &report)
                        paging.accept(totalHits: page.totalHits)
                    case .settled(let items, let totalHits):
                        settled(items, number: number, into: &report)
                        if let totalHits { paging.accept(totalHits: totalHits) }
                    case .end:
                        paging.pageOutOfRange(number)
                    case .problem(let reason):
                        report.pageFailed(number, reason)
                    }
                    addNext()
                }
            }
        } catch is CancellationError {
            report.cancelled = true
        } catch is InvalidKey {
            report.failure = "the API rejected the key (Invalid API key): check \(config.keyEnv)"
        } catch {
            report.failure = redactor.redact("\(error)")
        }
        return report
    }

    private func record(_ page: PixabayPage, number: Int, reply: FeedClient.Reply, into report: inout SourceReport) async {
        report.pages += 1
        report.items += page.items.count
        if reply.origin == .pageCache { report.cachedPages += 1 }
        client.pageParsed(number, items: page.items.count)
        _ = await submit(page.items, page: number, reply: reply, paging: Self.paging(totalHits: page.totalHits))
    }

    /// Counts a page the archive settled without it being read (its kept page is unchanged).
    private func settled(_ items: Int, number: Int, into report: inout SourceReport) {
        report.pages += 1
        report.items += items
        report.cachedPages += 1
        client.pageParsed(number, items: items)
    }

    /// What the archive keeps of a page for paging without it: its `totalHits`.
    static func paging(totalHits: Int) -> String { "totalHits=\(totalHits)" }

    /// The `totalHits` a group's paging text keeps, if any.
    static func totalHits(_ paging: String?) -> Int? {
        guard let paging, paging.hasPrefix("totalHits=") else { return nil }
        return Int(paging.dropFirst("totalHits=".count))
    }

    private func fetchPage(_ number: Int) async throws -> PageResult {
        let request = HTTPRequest(url: config.pageURL(number))
        if let group = pages.settledKeptPage(number, request: client.identity(request), listing: owns(number)) {
            return .settled(items: group.items, totalHits: Self.totalHits(group.paging))
        }
        let reply = try await client.fetch(request)
        let response = reply.response
        guard response.status == 200 else {
            switch PixabayErrorKind.classify(status: response.status, body: response.body, redactor: redactor) {
            case .invalidKey: throw InvalidKey()
            case .pageOutOfRange: return .end
            case .rateLimited: return .problem(reply.located("rate limited (HTTP 429) after retries"))
            case .other(let text):
                return .problem(reply.located(redactor.redact(text.hasPrefix("HTTP ") ? text : "HTTP \(response.status): \(text)")))
            }
        }
        if let problem = FeedResponseCheck.problem(response, acceptErrorStatusJSON: false, redactor: redactor) {
            return .problem(reply.located(problem))
        }
        do {
            let page = try PixabayPage.decode(
                response.body, page: number, variants: config.variants, source: config.name,
                maxElements: FeedJSON.maxElements(pageBytes: client.limits.maxBytes))
            await client.keep(reply)
            return .page(page, reply: reply)
        } catch {
            return .problem(reply.located(redactor.redact("invalid page: \(error)")))
        }
    }
}
