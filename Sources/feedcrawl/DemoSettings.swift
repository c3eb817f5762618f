import DemoFeed
import FeedCrawlKit

/// Development knobs for the built-in demo feed, from the environment (not in --help):
/// `FEEDCRAWL_DEMO_LATENCY_MS` (delay added to every response, 0–60000) and
/// `FEEDCRAWL_DEMO_FAIL_RATE` (fraction 0–1 of feed and image requests answered with HTTP 500),
/// to watch the progress display or the retry logs on a slow, flaky feed.
enum DemoSettings {
    static func options(_ environment: [String: String]) throws -> DemoFeedOptions {
        var options = DemoFeedOptions()
        if let text = environment["FEEDCRAWL_DEMO_LATENCY_MS"], !text.isEmpty {
            guard let ms = Int(text), (0...60_000).contains(ms) else {
                throw CommandLineOptions.UsageError(description: "FEEDCRAWL_DEMO_LATENCY_MS takes 0 to 60000, not '\(TerminalText.sanitize(text))'")
            }
            options.latencyMs = ms
        }
        if let text = environment["FEEDCRAWL_DEMO_FAIL_RATE"], !text.isEmpty {
            guard let rate = Double(text), (0...1).contains(rate) else {
                throw CommandLineOptions.UsageError(description: "FEEDCRAWL_DEMO_FAIL_RATE takes 0 to 1, not '\(TerminalText.sanitize(text))'")
            }
            options.failRate = rate
        }
        return options
    }
}

extension DemoFeedServer {
    /// The demo feed's endpoint for each feed type it serves (by `FeedSource.type`).
    var endpointsByType: [String: String] {
        [PixabaySourceConfiguration.type: pixabayURL, LaunchesSourceConfiguration.type: launchesURL]
    }
}
