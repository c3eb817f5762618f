extension Crawler {
    /// Crawls one source through its own `FeedClient` (page cache, recording or replay, and a
    /// rate-limit budget of its own).
    static func crawl(
        _ source: SourceConfiguration, sink: ItemSink, fetcher: FeedFetcher, redactor: SecretRedactor,
        stores: FeedStores, events: @escaping @Sendable (CrawlEvent) -> Void
    ) async -> SourceReport {
        guard SourceConfiguration.isValidName(source.name) else {
            var report = SourceReport(name: source.name)
            report.failure = "invalid source name (use 1 to 64 of A-Z a-z 0-9 . _ -)"
            return report
        }
        let client = FeedClient(
            source: source.name, fetcher: fetcher, redactor: redactor, setup: stores.setup(for: source),
            events: events)
        switch source {
        case .pixabay(let config):
            return await PixabayCrawl(config: config, client: client, redactor: redactor, sink: sink).run()
        case .launches(let config):
            return await LaunchesCrawl(config: config, client: client, redactor: redactor, sink: sink).run()
        case .array(let config):
            return await ArrayCrawl(config: config, client: client, redactor: redactor, sink: sink).run()
        }
    }
}
