import DemoFeed
import FeedCrawlKit
import Foundation
import Testing
import TestSupport

/// Many sources on one API key share its rate-limit budget (issue 12's case: 20 Pixabay queries
/// on one key against 10 requests per 2 s), and `--metrics-file` writes what Prometheus' own
/// parser reads.
@Suite("Budgets and metrics (binary)", .serialized)
struct BudgetAndMetricsTests {
    @Test func twentySourcesOnOneKeyShareItsBudget() async throws {
        try await BinaryTestGate.run {
            var options = DemoFeedOptions.small(hits: 500, launches: 0)
            options.rateLimit = 10
            options.rateWindowSeconds = 2
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let sources = (0..<20).map { index in
                "{\"type\":\"pixabay\",\"name\":\"q\(index)\",\"url\":\"\(feed.pixabayURL)\",\"query\":\"query \(index)\",\"perPage\":100,\"pages\":5}"
            }
            let config = out + "/feedcrawl.json"
            try Data("{\"sources\":[\(sources.joined(separator: ","))]}".utf8).write(to: URL(fileURLWithPath: config))
            let run = try await BinaryProcess.run(
                ["--config", config, "--out", out, "--progress", "never", "--quiet"],
                environment: ["PIXABAY_KEY": "demo-key"], timeout: 180)
            #expect(run.status == 0, "\(run.stderr)")
            let stats = feed.stats()
            #expect(stats.rateLimited <= 2, "\(stats.rateLimited) answers 429")
            #expect(stats.api >= 100)
            // Every page of every source was read.
            let manifest = try await ArchiveExport.read(out).json()
            let summaries = (manifest["run"] as? [String: Any])?["sources"] as? [[String: Any]] ?? []
            #expect(summaries.count == 20)
            for summary in summaries {
                #expect(summary["pages"] as? Int == 5, "\(summary)")
                #expect(summary["error"] == nil && summary["warnings"] == nil, "\(summary)")
            }
            // The 20 queries list the same 500 images (the feed ignores q): each fetched once.
            #expect(stats.images == 500)
        }
    }

    /// Parses `text` with the Python `prometheus_client` package's text parser (Debian's
    /// python3-prometheus-client, which scripts/deps installs) and returns the samples it read
    /// as `name{labels} value` lines, or the parser's error.
    static func parseWithPrometheus(_ text: String) async throws -> (ok: Bool, output: String) {
        let script = """
        import sys
        from prometheus_client.parser import text_string_to_metric_families
        for family in text_string_to_metric_families(sys.stdin.read()):
            assert family.type == "gauge", family.name
            for s in family.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                print(f"{s.name}{{{labels}}} {s.value}")
        """
        let input = BinaryRunner.temporaryDirectory() + "/metrics.prom"
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        let child = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "/usr/bin/python3 -c '\(script)' < '\(input)'"],
            environment: ChildProcess.environment([:]))
        let exit = await child.exit(timeout: 60)
        let out = String(decoding: exit.stdout, as: UTF8.self) + String(decoding: exit.stderr, as: UTF8.self)
        return (exit.status == 0, out)
    }

    @Test func metricsFilesParseWithPrometheusOwnParser() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer(options: .small(hits: 60, launches: 10))
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let metrics = out + "/feedcrawl.prom"
            let args = [
                "--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2",
                "--per-page", "30", "--out", out, "--progress", "never", "--quiet", "--metrics-file", metrics,
            ]
            let env = ["PIXABAY_KEY": "demo-key"]
            // A plain run.
            var run = try await BinaryProcess.run(args, environment: env, timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            var parsed = try await Self.parseWithPrometheus(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metrics)), as: UTF8.self))
            #expect(parsed.ok, "\(parsed.output)")
            #expect(parsed.output.contains("feedcrawl_run_items{source=pixabay,status=downloaded} 60.0"), "\(parsed.output)")
            #expect(parsed.output.contains("feedcrawl_run_exit_status{} 0.0"))
            #expect(parsed.output.contains("feedcrawl_last_success_timestamp_seconds{}"))
            #expect(parsed.output.contains("feedcrawl_manifest_items{source=launches,status="))
            // Two shards write their own files, labelled; the merge writes the plain name.
            for index in 0..<2 {
                run = try await BinaryProcess.run(args + ["--shard", "\(index)/2"], environment: env, timeout: 120)
                #expect(run.status == 0, "\(run.stderr)")
                let file = out + "/feedcrawl-shard-\(index)-of-2.prom"
                parsed = try await Self.parseWithPrometheus(String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self))
                #expect(parsed.ok, "\(parsed.output)")
                #expect(parsed.output.contains("feedcrawl_run_exit_status{shard=\(index)/2} 0.0"), "\(parsed.output)")
            }
            let merge = try await BinaryProcess.run(["manifest", "merge", "--out", out, "--metrics-file", metrics], timeout: 60)
            #expect(merge.status == 0, "\(merge.stderr)")
            parsed = try await Self.parseWithPrometheus(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metrics)), as: UTF8.self))
            #expect(parsed.ok, "\(parsed.output)")
            #expect(parsed.output.contains("feedcrawl_merge_complete{} 1.0"), "\(parsed.output)")
            #expect(parsed.output.contains("feedcrawl_merge_shards{} 2.0"))
            // A failed run keeps the time of the last success.
            let before = parsed.output.split(separator: "\n").first { $0.hasPrefix("feedcrawl_last_success_timestamp_seconds") }
            feed.stop()
            run = try await BinaryProcess.run(args + ["--retries", "0"], environment: env, timeout: 120)
            #expect(run.status != 0)
            parsed = try await Self.parseWithPrometheus(String(decoding: try Data(contentsOf: URL(fileURLWithPath: metrics)), as: UTF8.self))
            #expect(parsed.ok, "\(parsed.output)")
            let after = parsed.output.split(separator: "\n").first { $0.hasPrefix("feedcrawl_last_success_timestamp_seconds") }
            #expect(before != nil && after == before, "\(String(describing: before)) vs \(String(describing: after))")
        }
    }

    @Test func hostileLabelValuesStillParse() async throws {
        var file = MetricsFile()
        file.samples.append(.init("feedcrawl_run_items", [("source", "a\"b\\c\nd"), ("status", "failed")], 3))
        let parsed = try await Self.parseWithPrometheus(file.text)
        #expect(parsed.ok, "\(parsed.output)")
        #expect(parsed.output.contains("feedcrawl_run_items{source=a\"b\\c\nd,status=failed} 3.0"), "\(parsed.output)")
    }
}
