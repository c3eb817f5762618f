import FeedCrawlKit
import Glibc

/// Test-only failpoints for the crash tests, off unless named in the environment:
/// - `FEEDCRAWL_TEST_KILL_AT=<checkpoint>`: the process sends itself SIGKILL there;
/// - `FEEDCRAWL_TEST_PAUSE_AT=<checkpoint>`: it prints `feedcrawl: test: paused at <checkpoint>`
///   to stderr and blocks there for good (signals still work), so a test can act at that moment.
/// `<checkpoint>` is a `CrawlCheckpoint` raw value, e.g. `manifest-written`. Not for users.
enum CrashPoint {
    static func fromEnvironment(_ environment: [String: String]) -> (@Sendable (CrawlCheckpoint) -> Void)? {
        let kill = environment["FEEDCRAWL_TEST_KILL_AT"].flatMap(CrawlCheckpoint.init(rawValue:))
        let pause = environment["FEEDCRAWL_TEST_PAUSE_AT"].flatMap(CrawlCheckpoint.init(rawValue:))
        guard kill != nil || pause != nil else { return nil }
        return { checkpoint in
            if checkpoint == kill { Glibc.kill(getpid(), SIGKILL) }
            if checkpoint == pause {
                Console.err("feedcrawl: test: paused at \(checkpoint.rawValue)")
                while true { sleep(60) }
            }
        }
    }
}
