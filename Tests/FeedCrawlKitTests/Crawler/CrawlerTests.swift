import Testing

/// The crawler suites. Each runs its tests one at a time (a crawl fsyncs every image on the
/// cooperative pool; many at once starve timing-sensitive tests elsewhere); the suites run
/// side by side.
@Suite("Crawler")
enum CrawlerTests {}
