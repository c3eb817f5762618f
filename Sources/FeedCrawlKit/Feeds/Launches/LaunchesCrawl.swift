/// Follows the launches API's cursor chain until `hasMore` is false, the page limit is reached,
/// or the chain gives evidence of a loop (a cursor already sent, an empty page). With `details`, each
/// page's launches are queried (`LaunchDetails`) while the next page is fetched; an item is
/// recorded once its details and its images are in.
struct LaunchesCrawl: FeedCrawl {
    let config: LaunchesSourceConfiguration
    let context: FeedCrawlContext

    private enum PageResult {
        case page(LaunchesPage, fromCache: Bool)
        /// The server refused the query (GraphQL errors without data): the source fails.
        case refused(String)
        case problem(String)
    }

    func run() async -> SourceReport {
        var report = SourceReport(name: config.name)
        guard config.pages > 0, shard?.owns(source: config.name) ?? true else { return report }
        let details = config.details ? LaunchDetailsCrawl(config: config, client: client, redactor: redactor, pipeline: pipeline) : nil
        return await withTaskGroup(of: [LaunchDetailsCrawl.Miss].self) { detailTasks in
            var pager = LaunchPager(pageLimit: config.pages)
            var cursor: String? = nil
            var number = 1
            do {
                listing: while true {
                    let page: LaunchesPage
                    switch try await fetchPage(number, cursor: cursor) {
                    case .page(let decoded, let fromCache):
                        page = decoded
                        if fromCache { report.cachedPages += 1 }
                    case .refused(let reason):
                        report.failure = reason
                        break listing
                    case .problem(let reason):
                        report.readFailed(page: number, reason)
                        break listing
                    }
                    for note in page.errorNotes {
                        report.warnings.append("page \(number): partial data, \(note)")
                    }
                    let step = pager.accept(page)
                    report.pages += 1
                    let fresh = pager.newItems
                    report.items += fresh.count
                    client.pageParsed(number, items: page.items.count)
                    let tokens = await pipeline.submit(fresh, group: group, awaitingDetails: details != nil)
                    if let details {
                        let launches = zip(fresh, tokens).compactMap { item, token -> LaunchDetailsCrawl.Launch? in
                            guard item.problem == nil, let token else { return nil }
                            return .init(id: item.id, token: token)
                        }
                        detailTasks.addTask { await details.run(launches) }
                    }
                    switch step {
                    case .next(let nextCursor):
                        cursor = nextCursor
                        number += 1
                    case .done:
                        break listing
                    case .stop(let warning):
                        report.warnings.append(warning)
                        break listing
                    }
                }
            } catch is CancellationError {
                report.cancelled = true
            } catch {
                report.readFailed(page: number, redactor.redact("\(error)"))
            }
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

    private func fetchPage(_ number: Int, cursor: String?) async throws -> PageResult {
        let request = HTTPRequest(
            url: config.url, method: .post,
            headers: [HTTPHeader(name: "Content-Type", value: LaunchesQuery.contentType)],
            body: LaunchesQuery.listBody(cursor: cursor, pageSize: config.pageSize, variants: config.effectiveVariants))
        let reply = try await client.fetch(request)
        let response = reply.response
        if let problem = FeedResponseCheck.problem(response, acceptErrorStatusJSON: true, redactor: redactor) {
            return .problem(reply.located(problem))
        }
        do {
            let page = try LaunchesPage.decode(
                response.body, page: number, source: config.name, variants: config.effectiveVariants.map(\.rawValue),
                maxElements: FeedJSON.maxElements(pageBytes: client.limits.maxBytes))
            if response.isSuccess { client.keep(reply) }
            return .page(page, fromCache: reply.origin == .pageCache)
        } catch let failure as GraphQLFailure {
            return .refused(reply.located(FeedResponseCheck.describe(failure, status: response.status, redactor: redactor)))
        } catch {
            return .problem(reply.located(FeedResponseCheck.describe(error, status: response.status, redactor: redactor)))
        }
    }
}
