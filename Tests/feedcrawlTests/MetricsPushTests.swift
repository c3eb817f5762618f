import DemoFeed
import FeedCrawlKit
import Foundation
import Glibc
import Testing
import FeedCrawlSupport
import FeedCrawlHTTP
import TestSupport

/// `--metrics-push URL` against a real Prometheus Pushgateway (Debian's
/// `prometheus-pushgateway`, installed by `scripts/deps --tests`), which the test starts on a
/// free loopback port, persistence off, and stops by its pid (SIGTERM, then SIGKILL after 10 s).
/// Without the pushgateway binary the test fails: it does not skip.
@Suite("Metrics push to a Pushgateway (binary)", .serialized)
struct MetricsPushTests {
    static let pushgateway = "/usr/bin/prometheus-pushgateway"

    /// A loopback port nothing listens on (a server's, just stopped).
    static func freePort() throws -> Int {
        let holder = try HTTPServer { _ in ServerResponse(status: 204, headers: [], body: .bytes([])) }
        let port = Int(holder.port)
        holder.stop()
        return port
    }

    /// A GET through FeedCrawlKit's engine: the status and body, or nil when nothing answers.
    static func get(_ url: String) async -> (Int, String)? {
        try? await HTTPEngine.withEngine { engine in
            var request = HTTPRequest(url: url)
            request.totalTimeoutMs = 5_000
            request.maxBytes = 64 << 20
            let response = try await engine.perform(request)
            return (response.status, String(decoding: response.body, as: UTF8.self))
        }
    }

    /// The pushgateway's samples: `name{labels as it prints them}` to value.
    static func samples(_ base: String) async throws -> [String: Double] {
        let answer = try #require(await get(base + "/metrics"))
        #expect(answer.0 == 200)
        var samples: [String: Double] = [:]
        for line in answer.1.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    /// Runs `body` with a pushgateway listening at the base URL it is given, and stops it by pid.
    static func withPushgateway(_ body: (String) async throws -> Void) async throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: pushgateway),
            "\(pushgateway) is missing: install prometheus-pushgateway (scripts/deps --tests)")
        guard FileManager.default.isExecutableFile(atPath: pushgateway) else {
            throw ChildProcess.Failure(description: "no \(pushgateway)")
        }
        let port = try freePort()
        let base = "http://127.0.0.1:\(port)"
        // No --persistence.file: it keeps nothing on disk.
        let gateway = try ChildProcess(
            executable: pushgateway, arguments: ["--web.listen-address=127.0.0.1:\(port)"],
            environment: ChildProcess.environment([:]), mergeStderr: true)
        var failure: (any Error)?
        do {
            var ready = false
            for _ in 0..<300 where !ready {
                if let answer = await get(base + "/-/ready"), answer.0 == 200 { ready = true } else {
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            #expect(ready, "the pushgateway did not answer on \(base)")
            if ready { try await body(base) }
        } catch {
            failure = error
        }
        gateway.send(SIGTERM)
        let exit = await gateway.exit(timeout: 10)  // SIGKILL after 10 s
        #expect(!exit.signaled, "the pushgateway did not end on SIGTERM: \(String(decoding: exit.stdout, as: UTF8.self))")
        if let failure { throw failure }
    }

    @Test func runsShardsAndMergesPushTheirMetrics() async throws {
        try await BinaryTestGate.run {
            try await Self.withPushgateway { base in
                let feed = try DemoFeedServer(options: .small(hits: 60, launches: 10))
                defer { feed.stop() }
                let out = BinaryRunner.temporaryDirectory()
                defer { try? FileManager.default.removeItem(atPath: out) }
                let args = [
                    "--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "2",
                    "--per-page", "30", "--out", out, "--progress", "never", "--quiet", "--retries", "0",
                    "--metrics-push", base + "/",
                ]
                let env = ["PIXABAY_KEY": "demo-key"]
                let job = #"instance="",job="feedcrawl""#

                // A plain run: the job's own group.
                var run = try await BinaryProcess.run(args, environment: env, timeout: 120)
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stderr.isEmpty, "\(run.stderr)")
                var samples = try await Self.samples(base)
                #expect(samples["feedcrawl_run_exit_status{\(job)}"] == 0, "\(samples.keys.sorted())")
                #expect(samples[#"feedcrawl_run_items{\#(job),source="pixabay",status="downloaded"}"#] == 60)
                #expect(samples[#"feedcrawl_run_items{\#(job),source="launches",status="failed"}"#] == 0)
                #expect(samples[#"feedcrawl_build_info{\#(job),libcurl="\#(BuildInfo.libcurlVersion)",version="\#(BuildInfo.version)"}"#] == 1)
                #expect((samples["push_failure_time_seconds{\(job)}"] ?? -1) == 0)
                let firstSuccess = try #require(samples["feedcrawl_last_success_timestamp_seconds{\(job)}"])
                #expect(firstSuccess > 1_700_000_000)

                // Two shards push groups of their own (shard="K/N", as their samples say).
                for index in 0..<2 {
                    run = try await BinaryProcess.run(args + ["--shard", "\(index)/2"], environment: env, timeout: 120)
                    #expect(run.status == 0, "\(run.stderr)")
                }
                samples = try await Self.samples(base)
                for index in 0..<2 {
                    let group = #"instance="",job="feedcrawl",shard="\#(index)/2""#
                    #expect(samples["feedcrawl_run_exit_status{\(group)}"] == 0, "\(samples.keys.sorted())")
                    #expect(samples["push_time_seconds{\(group)}"] != nil)
                }
                // Between them the shards listed every item once.
                let shardSamples = samples.filter {
                    $0.key.hasPrefix(#"feedcrawl_run_items{instance="",job="feedcrawl",shard="#)
                        && $0.key.contains(#"source="pixabay""#)
                }
                let shardItems = shardSamples.values.reduce(0, +)
                #expect(shardItems == 60, "\(shardSamples)")

                // The merge replaces the job's own group.
                let merge = try await BinaryProcess.run(
                    ["manifest", "merge", "--out", out, "--quiet", "--metrics-push", base], timeout: 60)
                #expect(merge.status == 0, "\(merge.stderr)")
                samples = try await Self.samples(base)
                #expect(samples["feedcrawl_merge_shards{\(job)}"] == 2)
                #expect(samples["feedcrawl_merge_complete{\(job)}"] == 1)
                #expect(samples["feedcrawl_run_exit_status{\(job)}"] == 0)
                let mergeSuccess = try #require(samples["feedcrawl_last_success_timestamp_seconds{\(job)}"])
                #expect(mergeSuccess >= firstSuccess)

                // A failed run pushes its status and keeps the group's last success.
                feed.stop()
                run = try await BinaryProcess.run(args, environment: env, timeout: 120)
                #expect(run.status == 3, "\(run.stderr)")
                samples = try await Self.samples(base)
                #expect(samples["feedcrawl_run_exit_status{\(job)}"] == 3)
                // Pixabay's pages come from the page cache (24 h): the launches source fails.
                #expect(samples[#"feedcrawl_source_failed{\#(job),source="launches"}"#] == 1)
                #expect(samples["feedcrawl_last_success_timestamp_seconds{\(job)}"] == mergeSuccess)
            }
        }
    }

    @Test func aPushNobodyTakesIsAnErrorAndStatus1() async throws {
        try await BinaryTestGate.run {
            let feed = try DemoFeedServer(options: .small(hits: 6, launches: 2))
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let closed = "http://127.0.0.1:\(try Self.freePort())"
            let run = try await BinaryProcess.run(
                ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "1",
                 "--per-page", "6", "--out", out, "--progress", "never", "--quiet", "--metrics-push", closed],
                environment: ["PIXABAY_KEY": "demo-key"], timeout: 60)
            #expect(run.status == 1, "\(run.stderr)")
            #expect(run.stderr.contains("error: cannot push the metrics: \(closed)/metrics/job/feedcrawl:"), "\(run.stderr)")
            // The crawl itself went fine.
            #expect(FileManager.default.fileExists(atPath: out + "/manifest.json"))

            // A shard's push names its group; the merge's push fails as well.
            let shard = try await BinaryProcess.run(
                ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "1",
                 "--per-page", "6", "--out", out, "--progress", "never", "--quiet", "--shard", "0/1",
                 "--metrics-push", closed],
                environment: ["PIXABAY_KEY": "demo-key"], timeout: 60)
            #expect(shard.status == 1, "\(shard.stderr)")
            #expect(shard.stderr.contains("cannot push the metrics: \(closed)/metrics/job/feedcrawl/shard@base64/MC8x:"), "\(shard.stderr)")
            let merge = try await BinaryProcess.run(
                ["manifest", "merge", "--out", out, "--quiet", "--metrics-push", closed], timeout: 60)
            #expect(merge.status == 1, "\(merge.stderr)")
            #expect(merge.stderr.contains("error: cannot push the metrics: \(closed)/metrics/job/feedcrawl:"), "\(merge.stderr)")

            let bad = try await BinaryProcess.run(["--out", out, "--metrics-push", "pushgateway:9091"], timeout: 30)
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--metrics-push takes a Pushgateway URL"), "\(bad.stderr)")
        }
    }
}
