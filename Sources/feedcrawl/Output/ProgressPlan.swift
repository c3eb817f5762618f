import FeedCrawlKit

/// The sources a progress display shows, with the pages each may fetch.
enum ProgressPlan {
    static func sources(_ configuration: CrawlConfiguration) -> [(name: String, pages: Int)] {
        configuration.sources.map { ($0.name, $0.pages) }
    }
}
