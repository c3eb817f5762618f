import DemoFeed
import FeedCrawlSupport
import Foundation
import Testing

/// `--max-failures` and `--only-new-failures`: an image that fails for ever stops failing every
/// cron run, a new failure still does, and the summary and the metrics tell them apart.
@Suite("Failure tolerance (binary)", .serialized)
struct FailureToleranceTests {
    /// One run of 10 (or `perPage`) Pixabay items, images whose path ends with one of `failing`
    /// answered 410; returns the exit status, the `--json` summary's `failures` and failed count,
    /// and the metrics file's samples.
    static func crawl(
        _ feed: DemoFeedServer, out: String, perPage: Int = 10, extra: [String]
    ) async throws -> (status: Int32, failures: [String: Int], failed: Int, metrics: [String: Double], stderr: String) {
        let metrics = out + "/feedcrawl.prom"
        let run = try await BinaryRunner.run(
            ["--pixabay-url", feed.pixabayURL, "--pages", "1", "--per-page", "\(perPage)", "--out", out, "--retries", "0",
             "--progress", "never", "--json", "--metrics-file", metrics] + extra,
            environment: ["PIXABAY_KEY": "k"])
        let summary = try Output.jsonLine(run.stdout)
        let failures = try #require(summary["failures"] as? [String: Int], "\(run.stdout) \(run.stderr)")
        let counts = try #require(summary["counts"] as? [String: Int])
        #expect(summary["exitStatus"] as? Int == Int(run.status))
        return (run.status, failures, counts["failed", default: 0], try await MetricsRulesTests.samples(metrics), run.stderr)
    }

    @Test func repeatedFailuresAreToleratedWithOnlyNewAndANewOneStillFailsTheRun() async throws {
        var options = DemoFeedOptions.small(hits: 100, launches: 0)
        options.override = { $0.path.hasSuffix("3.jpg") ? .text("gone", status: 410) : nil }
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }

        // The first run: every failure is new, and fails the run.
        let first = try await Self.crawl(feed, out: out, extra: ["--only-new-failures"])
        let failing = first.failed
        #expect(failing > 0 && failing < 10)
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.failures == ["new": failing, "repeated": 0, "tolerated": 0])
        #expect(first.metrics["feedcrawl_run_failures{kind=new,source=pixabay}"] == Double(failing))
        #expect(first.metrics["feedcrawl_run_failures{kind=repeated,source=pixabay}"] == 0)
        #expect(first.metrics["feedcrawl_run_failures_tolerated"] == 0)

        // The same images fail the same way: not news.
        let second = try await Self.crawl(feed, out: out, extra: ["--only-new-failures"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.failed == failing)
        #expect(second.failures == ["new": 0, "repeated": failing, "tolerated": failing])
        #expect(second.stderr.contains("tolerated (--only-new-failures)"), "\(second.stderr)")
        #expect(second.metrics["feedcrawl_run_failures{kind=repeated,source=pixabay}"] == Double(failing))
        #expect(second.metrics["feedcrawl_run_failures_tolerated"] == Double(failing))
        #expect(second.metrics["feedcrawl_run_items{source=pixabay,status=failed}"] == Double(failing))
        // Without the option the same run fails, as before.
        let plain = try await Self.crawl(feed, out: out, extra: [])
        #expect(plain.status == 1)
        #expect(plain.failures == ["new": 0, "repeated": failing, "tolerated": 0])

        // Twenty items: the ten known, and ten new ones, some of which fail: news.
        let wider = try await Self.crawl(feed, out: out, perPage: 20, extra: ["--only-new-failures"])
        let added = wider.failed - failing
        #expect(added > 0)
        #expect(wider.status == 1, "\(wider.stderr)")
        // The new one fails the run; the repeated ones still do not count.
        #expect(wider.failures == ["new": added, "repeated": failing, "tolerated": failing])
        #expect(wider.metrics["feedcrawl_run_failures{kind=new,source=pixabay}"] == Double(added))
    }

    @Test func maxFailuresToleratesUpToNOrAShareOfTheListedItems() async throws {
        var options = DemoFeedOptions.small(hits: 100, launches: 0)
        options.override = { $0.path.hasSuffix("7.jpg") || $0.path.hasSuffix("3.jpg") ? .text("gone", status: 410) : nil }
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }

        let first = try await Self.crawl(feed, out: out, extra: [])
        let failing = first.failed
        #expect(failing > 1 && failing < 10)
        #expect(first.status == 1)
        let within = try await Self.crawl(feed, out: out, extra: ["--max-failures", "\(failing)"])
        #expect(within.status == 0, "\(within.stderr)")
        #expect(within.failures["tolerated"] == failing)
        #expect(within.stderr.contains("tolerated (--max-failures \(failing))"), "\(within.stderr)")
        let over = try await Self.crawl(feed, out: out, extra: ["--max-failures", "\(failing - 1)"])
        #expect(over.status == 1)
        #expect(over.failures["tolerated"] == 0)
        #expect(over.metrics["feedcrawl_run_failures_tolerated"] == 0)
        // A share of the 10 listed items.
        let share = try await Self.crawl(feed, out: out, extra: ["--max-failures", "\(failing * 10)%"])
        #expect(share.status == 0, "\(share.stderr)")
        let below = try await Self.crawl(feed, out: out, extra: ["--max-failures", "\(failing * 10 - 1)%"])
        #expect(below.status == 1)
        // A bad value is a usage error, naming both forms.
        let bad = try await BinaryRunner.run(["--max-failures", "many", "--out", out], environment: [:])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--max-failures takes a number of items (500) or a percentage (10%)"), "\(bad.stderr)")
    }
}
