/// Follows the launches API's cursor chain until `hasMore` is false, the page limit is reached,
/// or the chain misbehaves (a repeated cursor, a page of ids already seen).
struct LaunchesCrawl: Sendable {
    let config: LaunchesSourceConfiguration
    let fetcher: FeedFetcher
    let redactor: SecretRedactor
    let emit: @Sendable (Int, [FeedItem]) async -> Void

    func run() async -> SourceReport {
        var report = SourceReport(name: config.name)
        var pager = LaunchPager(pageLimit: config.pages)
        var cursor: String? = nil
        var number = 1
        guard config.pages > 0 else { return report }
        do {
            while true {
                let body = LaunchesQuery.listBody(cursor: cursor)
                let request = HTTPRequest(
                    url: config.url, method: .post,
                    headers: [HTTPHeader(name: "Content-Type", value: "application/json")], body: body)
                let response = try await fetcher.fetch(request)
                let page: LaunchesPage
                do {
                    if case .error(let reason) = FeedResponseCheck.check(
                        status: 200, contentType: response.contentType, body: response.body, redactor: redactor)
                    {
                        throw FeedFetcher.Failure(description: "HTTP \(response.status), \(reason)")
                    }
                    page = try LaunchesPage.decode(response.body, page: number)
                } catch {
                    let reason = redactor.redact("\(error)")
                    if number == 1 { report.failure = reason } else { report.warnings.append("page \(number): \(reason)") }
                    return report
                }
                for error in page.errors { report.warnings.append("page \(number): \(error.message)") }
                let step = pager.accept(page)
                report.pages += 1
                let fresh = pager.newItems
                report.items += fresh.count
                await emit(number, fresh)
                switch step {
                case .next(let nextCursor):
                    cursor = nextCursor
                    number += 1
                case .done:
                    return report
                case .stop(let warning):
                    report.warnings.append(warning)
                    return report
                }
            }
        } catch is CancellationError {
            report.cancelled = true
        } catch {
            let reason = redactor.redact("\(error)")
            if number == 1 { report.failure = reason } else { report.warnings.append("page \(number): \(reason)") }
        }
        return report
    }
}
