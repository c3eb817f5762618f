/// Pages through a feed of bare JSON arrays (`?page=N&per_page=M`), one page after another,
/// until an empty or short page, the page limit, or a page of ids already seen.
struct ArrayCrawl: FeedCrawl {
    let config: ArraySourceConfiguration
    let context: FeedCrawlContext

    func run() async -> SourceReport {
        var report = SourceReport(name: config.name)
        guard config.pages > 0 else { return report }
        var paging = ArrayPaging(
            requestedPages: config.pages, perPage: config.perPage,
            firstPage: shard?.firstPage(source: config.name) ?? 1, stride: shard?.count ?? 1)
        guard paging.hasPage else { return report }
        var number = paging.page
        do {
            while true {
                let reply = try await client.fetch(HTTPRequest(url: config.pageURL(number)))
                let response = reply.response
                let items: [FeedItem]
                do {
                    if let problem = FeedResponseCheck.problem(response, acceptErrorStatusJSON: false, redactor: redactor) {
                        throw FeedClient.Failure(description: problem)
                    }
                    items = try ArrayPage.decode(
                        response.body, page: number, idField: config.idField, imageField: config.imageField,
                        titleField: config.titleField, source: config.name,
                        maxElements: FeedJSON.maxElements(pageBytes: client.limits.maxBytes))
                } catch {
                    report.readFailed(page: number, reply.located(redactor.redact("\(error)")))
                    return report
                }
                client.keep(reply)
                if reply.origin == .pageCache { report.cachedPages += 1 }
                let step = paging.accept(items)
                report.pages += 1
                report.items += paging.newItems.count
                client.pageParsed(number, items: items.count)
                await pipeline.submit(paging.newItems, group: group)
                switch step {
                case .next(let page):
                    number = page
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
            report.readFailed(page: number, redactor.redact("\(error)"))
        }
        return report
    }
}
