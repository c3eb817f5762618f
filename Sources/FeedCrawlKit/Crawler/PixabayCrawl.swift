/// Pages through a Pixabay-style search API: page 1 first, then the rest concurrently,
/// never past `ceil(totalHits / per_page)`.
struct PixabayCrawl: Sendable {
    let config: PixabaySourceConfiguration
    let fetcher: FeedFetcher
    let redactor: SecretRedactor
    let emit: @Sendable (Int, [FeedItem]) async -> Void

    private var query: PixabayQuery {
        var query = PixabayQuery(baseURL: config.url, key: config.key, perPage: config.perPage)
        query.q = config.query
        query.imageType = config.imageType
        return query
    }

    private enum PageResult: Sendable {
        case page(PixabayPage)
        case end
        case problem(String)
    }

    struct InvalidKey: Error {}

    func run() async -> SourceReport {
        var report = SourceReport(name: config.name)
        guard config.pages > 0 else { return report }
        do {
            let first = try await fetchPage(1)
            guard case .page(let page) = first else {
                if case .problem(let reason) = first { report.failure = reason }
                return report
            }
            await record(page, number: 1, into: &report)
            let lastPage = PixabayPaging(requestedPages: config.pages, perPage: config.perPage)
                .lastPage(totalHits: page.totalHits)
            guard lastPage >= 2 else { return report }
            try await withThrowingTaskGroup(of: (Int, PageResult).self) { group in
                var next = 2
                func addNext() {
                    let number = next
                    next += 1
                    group.addTask { (number, try await fetchPage(number)) }
                }
                while next <= lastPage && next < 2 + max(1, config.pageConcurrency) { addNext() }
                while let (number, result) = try await group.next() {
                    switch result {
                    case .page(let page): await record(page, number: number, into: &report)
                    case .end: break
                    case .problem(let reason): report.warnings.append("page \(number): \(reason)")
                    }
                    if next <= lastPage { addNext() }
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

    private func record(_ page: PixabayPage, number: Int, into report: inout SourceReport) async {
        report.pages += 1
        report.items += page.items.count
        await emit(number, page.items)
    }

    private func fetchPage(_ number: Int) async throws -> PageResult {
        let response = try await fetcher.fetch(HTTPRequest(url: query.url(page: number)))
        guard response.status == 200 else {
            switch PixabayErrorKind.classify(status: response.status, body: response.body) {
            case .invalidKey: throw InvalidKey()
            case .pageOutOfRange: return .end
            case .rateLimited: return .problem("rate limited (HTTP 429) after retries")
            case .other(let text): return .problem(redactor.redact("HTTP \(response.status): \(text)"))
            }
        }
        switch FeedResponseCheck.check(
            status: response.status, contentType: response.contentType, body: response.body, redactor: redactor)
        {
        case .error(let reason): return .problem(reason)
        case .json: break
        }
        do {
            return .page(try PixabayPage.decode(response.body, page: number))
        } catch {
            return .problem(redactor.redact("invalid page: \(error)"))
        }
    }
}
