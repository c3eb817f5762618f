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
        case page(PixabayPage, body: [UInt8], fromCache: Bool)
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
            case .page(let page, let body, let fromCache):
                if owns(1) { await record(page, number: 1, body: body, fromCache: fromCache, into: &report) }
                paging.accept(totalHits: page.totalHits)
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
                    case .page(let page, let body, let fromCache):
                        await record(page, number: number, body: body, fromCache: fromCache, into: &report)
                        paging.accept(totalHits: page.totalHits)
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
            report.failure = "the API rejected the key (Invalid API key): check PIXABAY_KEY"
        } catch {
            report.failure = redactor.redact("\(error)")
        }
        return report
    }

    private func record(_ page: PixabayPage, number: Int, body: [UInt8], fromCache: Bool, into report: inout SourceReport)
        async
    {
        report.pages += 1
        report.items += page.items.count
        if fromCache { report.cachedPages += 1 }
        client.pageParsed(number, items: page.items.count)
        _ = await submit(page.items, page: number, body: body)
    }

    private func fetchPage(_ number: Int) async throws -> PageResult {
        let reply = try await client.fetch(HTTPRequest(url: config.pageURL(number)))
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
            return .page(page, body: response.body, fromCache: reply.origin == .pageCache)
        } catch {
            return .problem(reply.located(redactor.redact("invalid page: \(error)")))
        }
    }
}
