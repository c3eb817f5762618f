import DemoFeed
import FeedCrawlKit
import Foundation
import Testing

/// `--metrics-file` writes every series whatever failed, and the alerting rules in
/// `scripts/prometheus/` (checked by `scripts/test-prometheus` with promtool) use the metric and
/// label names a real run writes.
@Suite("Metrics for alerting (binary)", .serialized)
struct MetricsRulesTests {
    static var repoRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// The samples of a metrics file as Prometheus' parser reads them: `name{k=v,…}` (labels
    /// sorted; `name` alone without labels) to value.
    static func samples(_ path: String) async throws -> [String: Double] {
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        let parsed = try await BudgetAndMetricsTests.parseWithPrometheus(text)
        #expect(parsed.ok, "\(parsed.output)")
        var samples: [String: Double] = [:]
        for line in parsed.output.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            var key = String(line[..<space])
            if key.hasSuffix("{}") { key.removeLast(2) }
            samples[key] = value
        }
        return samples
    }

    /// The families of `samples` and the label names each uses.
    static func families(_ samples: [String: Double]) -> [String: Set<String>] {
        var families: [String: Set<String>] = [:]
        for key in samples.keys {
            guard let brace = key.firstIndex(of: "{") else { continue }
            let labels = key[key.index(after: brace)..<key.index(before: key.endIndex)]
            let names = labels.split(separator: ",").compactMap { $0.split(separator: "=").first.map(String.init) }
            families[String(key[..<brace]), default: []].formUnion(names)
        }
        return families
    }

    /// The `feedcrawl_…` metric names a rules or rules-test file uses, and the label names in
    /// their `{…}` selectors (but `instance` and `job`, which the scrape adds).
    static func ruleSelectors(_ text: String) -> [String: Set<String>] {
        var used: [String: Set<String>] = [:]
        let pattern = /feedcrawl_[a-z_]+(\{[^}]*\})?/
        for match in text.matches(of: pattern) {
            let name = String(match.output.0.prefix { $0 != "{" })
            var labels: Set<String> = []
            if let selector = match.output.1 {
                for part in selector.dropFirst().dropLast().split(separator: ",") {
                    let label = part.prefix { $0 != "=" && $0 != "!" }.trimmingCharacters(in: .whitespaces)
                    if !label.isEmpty, label != "instance", label != "job" { labels.insert(label) }
                }
            }
            used[name, default: []].formUnion(labels)
        }
        return used
    }

    static func runArguments(_ feed: DemoFeedServer, launchesURL: String, out: String) -> [String] {
        [
            "--pixabay-url", feed.pixabayURL, "--launches-url", launchesURL, "--pages", "2", "--per-page", "30",
            "--out", out, "--progress", "never", "--quiet", "--retries", "0", "--metrics-file", out + "/feedcrawl.prom",
        ]
    }

    @Test func everySeriesIsWrittenWhateverFailed() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer(options: .small(hits: 60, launches: 10))
            defer { feed.stop() }
            let dead = try DemoFeedServer(options: .small(hits: 0, launches: 10))
            let deadLaunches = dead.launchesURL
            dead.stop()
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let env = ["PIXABAY_KEY": "demo-key"]
            let before = Date().timeIntervalSince1970.rounded(.down)
            var run = try await BinaryProcess.run(
                Self.runArguments(feed, launchesURL: feed.launchesURL, out: out), environment: env, timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            let good = try await Self.samples(out + "/feedcrawl.prom")
            // Every status of every source, 0 included.
            for source in ["pixabay", "launches"] {
                for status in ItemStatus.allCases {
                    #expect(good["feedcrawl_run_items{source=\(source),status=\(status.rawValue)}"] != nil, "\(source) \(status)")
                    #expect(good["feedcrawl_manifest_items{source=\(source),status=\(status.rawValue)}"] != nil)
                    #expect((good["feedcrawl_run_images{source=\(source),status=\(status.rawValue)}"] != nil) == (status != .noImage))
                }
                #expect(good["feedcrawl_source_failed{source=\(source)}"] == 0)
                #expect(good["feedcrawl_source_failed_pages{source=\(source)}"] == 0)
            }
            #expect(good["feedcrawl_run_items{source=pixabay,status=failed}"] == 0)
            #expect(good["feedcrawl_run_images{source=pixabay,status=failed}"] == 0)
            #expect(good["feedcrawl_run_items{source=pixabay,status=downloaded}"] == 60)
            // Build information: feedcrawl's version as --version prints it, and libcurl's.
            let version = try await BinaryProcess.run(["--version"], timeout: 30)
            let number = version.stdout.split(separator: "\n").first?.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
            let build = good.keys.filter { $0.hasPrefix("feedcrawl_build_info{") }
            #expect(build.count == 1, "\(build)")
            #expect(build.first?.contains("version=\(number)") == true, "\(build) vs \(version.stdout)")
            #expect(build.first?.contains(/libcurl=[0-9]+\.[0-9]+/) == true, "\(build)")
            #expect(build.first.flatMap { good[$0] } == 1)
            // The cache: exactly the files on disk after the run (a whole run sweeps the rest).
            var files = 0
            var bytes: Int64 = 0
            let cache = out + "/cache"
            for case let path as String in FileManager.default.enumerator(atPath: cache) ?? .init() {
                let attributes = try FileManager.default.attributesOfItem(atPath: cache + "/" + path)
                guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                files += 1
                bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
            }
            #expect(files > 0)
            #expect(good["feedcrawl_cache_files"] == Double(files))
            #expect(good["feedcrawl_cache_bytes"] == Double(bytes))
            // The run's start and end times.
            let start = good["feedcrawl_run_start_timestamp_seconds"] ?? 0
            let end = good["feedcrawl_run_end_timestamp_seconds"] ?? 0
            #expect(start >= before && start <= end && end <= Date().timeIntervalSince1970 + 1, "\(start) \(end)")
            #expect(good["feedcrawl_last_success_timestamp_seconds"] == end)

            // The launches feed is gone: that source fails, and the file has the same series.
            run = try await BinaryProcess.run(
                Self.runArguments(feed, launchesURL: deadLaunches, out: out), environment: env, timeout: 120)
            #expect(run.status != 0, "\(run.stderr)")
            let failed = try await Self.samples(out + "/feedcrawl.prom")
            #expect(Set(failed.keys) == Set(good.keys), "\(Set(failed.keys).symmetricDifference(good.keys))")
            #expect(failed["feedcrawl_source_failed{source=launches}"] == 1)
            #expect(failed["feedcrawl_source_failed{source=pixabay}"] == 0)
            #expect(failed["feedcrawl_run_exit_status"] != 0)
            #expect(failed["feedcrawl_last_success_timestamp_seconds"] == end)
        }
    }

    @Test func firstFailedRunWritesEveryFamilyAndNoSuccessAsZero() async throws {
        try await BinaryTestGate.run {
            let dead = try DemoFeedServer(options: .small(hits: 10, launches: 10))
            let (pixabay, launches) = (dead.pixabayURL, dead.launchesURL)
            dead.stop()
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try await BinaryProcess.run(
                [
                    "--pixabay-url", pixabay, "--launches-url", launches, "--pages", "1", "--out", out,
                    "--progress", "never", "--quiet", "--retries", "0", "--metrics-file", out + "/feedcrawl.prom",
                ],
                environment: ["PIXABAY_KEY": "demo-key"], timeout: 120)
            #expect(run.status != 0)
            let samples = try await Self.samples(out + "/feedcrawl.prom")
            let written = Set(Self.families(samples).keys).union(samples.keys.filter { !$0.contains("{") })
            let expected: Set<String> = [
                "feedcrawl_build_info", "feedcrawl_run_items", "feedcrawl_run_images", "feedcrawl_manifest_items",
                "feedcrawl_source_failed", "feedcrawl_source_failed_pages", "feedcrawl_run_forgotten_items",
                "feedcrawl_run_forgotten_bytes", "feedcrawl_cache_bytes", "feedcrawl_out_bytes",
                "feedcrawl_cache_files", "feedcrawl_run_downloaded_bytes", "feedcrawl_run_duration_seconds",
                "feedcrawl_run_exit_status", "feedcrawl_run_start_timestamp_seconds",
                "feedcrawl_run_end_timestamp_seconds", "feedcrawl_last_success_timestamp_seconds",
                "feedcrawl_run_failures", "feedcrawl_run_failures_tolerated",
            ]
            #expect(written == expected, "\(written.symmetricDifference(expected))")
            #expect(samples["feedcrawl_last_success_timestamp_seconds"] == 0)
            #expect(samples["feedcrawl_source_failed{source=pixabay}"] == 1)
            #expect(samples["feedcrawl_run_images{source=launches,status=failed}"] == 0)
        }
    }

    @Test func alertingRulesUseTheNamesFeedcrawlWrites() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer(options: .small(hits: 30, launches: 10))
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let run = try await BinaryProcess.run(
                Self.runArguments(feed, launchesURL: feed.launchesURL, out: out), environment: ["PIXABAY_KEY": "demo-key"],
                timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            let written = Self.families(try await Self.samples(out + "/feedcrawl.prom"))
            let plain = Set(try await Self.samples(out + "/feedcrawl.prom").keys.filter { !$0.contains("{") })
            for file in ["feedcrawl.rules.yml", "feedcrawl.rules.test.yml"] {
                let path = Self.repoRoot.appendingPathComponent("scripts/prometheus/" + file)
                let used = Self.ruleSelectors(String(decoding: try Data(contentsOf: path), as: UTF8.self))
                #expect(used.count >= 3, "\(file): \(used)")
                for (name, labels) in used {
                    let known = written[name] ?? (plain.contains(name) ? [] : nil)
                    #expect(known != nil, "\(file) uses \(name), which feedcrawl does not write")
                    // A shard's run adds `shard`.
                    let extra = labels.subtracting(known ?? []).subtracting(["shard"])
                    #expect(extra.isEmpty, "\(file): \(name) with labels \(extra) feedcrawl does not write")
                }
            }
        }
    }
}
