import Testing

/// The crawler suites, run one test at a time: each crawl fsyncs every image on the
/// cooperative pool, and several at once would starve the timing-sensitive tests elsewhere.
@Suite("Crawler", .serialized)
enum CrawlerTests {}
