import FeedCrawlHTTP

/// Follows the launches API's cursor chain until `hasMore` is false, the page limit is reached,
/// or the chain gives evidence of a loop (a cursor already sent, an empty page). With `details`, each
/// page's launches are queried (`LaunchDetails`) while the next page is fetched; an item is
/// recorded once its details and its images are in.
struct LaunchesCrawl: FeedCrawl {
    let config: LaunchesSourceConfiguration
    let context: FeedCrawlContext

    func run() async -> SourceReport {
        var report = SourceReport(name: config.name)
        guard config.pages > 0, shard?.owns(source: config.name) ?? true else { return report }
        let details = config.details ? LaunchDetailsCrawl(config: config, context: context) : nil
        return await withTaskGroup(of: [LaunchDetailsCrawl.Miss].self) { detailTasks in
            var pager = LaunchPager(pageLimit: config.pages)
            await context.walkPages(&pager, into: &report, awaitingDetails: details != nil, request: { pager in
                HTTPRequest(
                    url: config.url, method: .post,
                    headers: [HTTPHeader(name: "Content-Type", value: LaunchesQuery.contentType)],
                    body: LaunchesQuery.listBody(cursor: pager.cursor, pageSize: config.pageSize, variants: config.effectiveVariants))
            }, read: readPage, submitted: { fresh, tokens in
                guard let details else { return }
                let launches = zip(fresh, tokens).compactMap { item, token -> LaunchDetailsCrawl.Launch? in
                    guard item.problem == nil, let token else { return nil }
                    return .init(id: item.id, token: token)
                }
                detailTasks.addTask { await details.run(launches) }
            })
            var problems: [String] = []
            var refused = 0
            for await misses in detailTasks {
                for miss in misses {
                    switch miss {
                    case .failed(let problem): problems.append(problem)
                    case .refused: refused += 1
                    }
                }
            }
            report.missingDetails = problems.count + refused
            if let first = problems.first {
                let more = problems.count > 1 ? " (and \(problems.count - 1) more launches)" : ""
                report.warnings.append("details: \(first)\(more)")
            }
            if refused > 0, let reason = details?.refusal.withLock({ $0 }) {
                report.warnings.append("details: the server refused the LaunchDetails query (\(reason)); "
                    + "not sent again this run: \(refused) launches without details")
            }
            return report
        }
    }

    /// A `LaunchList` answer as a page; nil when it is not one (a page error), or when the server
    /// refused the query (GraphQL errors without data: the source fails).
    private func readPage(_ reply: FeedClient.Reply, number: Int, report: inout SourceReport) -> LaunchesPage? {
        let response = reply.response
        if let problem = FeedResponseCheck.problem(response, acceptErrorStatusJSON: true, redactor: redactor) {
            report.readFailed(page: number, reply.located(problem))
            return nil
        }
        do {
            let page = try LaunchesPage.decode(
                response.body, page: number, source: config.name, variants: config.effectiveVariants.map(\.rawValue),
                maxElements: FeedJSON.maxElements(pageBytes: client.limits.maxBytes))
            report.warnings += page.errorNotes.map { "page \(number): partial data, \($0)" }
            return page
        } catch let failure as GraphQLFailure {
            report.failure = reply.located(FeedResponseCheck.describe(failure, status: response.status, redactor: redactor))
        } catch {
            report.readFailed(page: number, reply.located(FeedResponseCheck.describe(error, status: response.status, redactor: redactor)))
        }
        return nil
    }
}
