import Testing

/// The crawler suites run one test at a time: each crawl is a loopback server, a libcurl
/// engine and a burst of fsynced downloads, and many at once starve the other suites' timers on
/// a small machine.
@Suite("Crawler", .serialized)
enum CrawlerTests {}
