import FeedCrawlKit

/// The sources a progress display shows, with the pages each may fetch.
enum ProgressPlan {
    static func sources(_ configuration: CrawlConfiguration) -> [(name: String, pages: Int)] {
        configuration.sources.map { source in
            switch source {
            case .pixabay(let config): return (config.name, config.pages)
            case .launches(let config): return (config.name, config.pages)
            case .array(let config): return (config.name, config.pages)
            }
        }
    }
}
