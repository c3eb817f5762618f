import FeedCrawlKit
import Glibc

/// A test-only failpoint: with `FEEDCRAWL_TEST_KILL_AT=<checkpoint>` in the environment (one of
/// `CrawlCheckpoint`'s raw values, e.g. `manifest-written`), the process sends itself SIGKILL
/// when the crawl reaches that point, so the crash tests can kill it at an exact moment of the
/// final write. Not documented for users; without the variable it does nothing.
enum CrashPoint {
    static let variable = "FEEDCRAWL_TEST_KILL_AT"

    static func fromEnvironment(_ environment: [String: String]) -> (@Sendable (CrawlCheckpoint) -> Void)? {
        guard let name = environment[variable], let target = CrawlCheckpoint(rawValue: name) else { return nil }
        return { checkpoint in
            if checkpoint == target { kill(getpid(), SIGKILL) }
        }
    }
}
