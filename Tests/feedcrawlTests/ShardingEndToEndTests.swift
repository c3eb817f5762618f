import DemoFeed
import FeedCrawlKit
import Foundation
import Testing

/// `--shard K/N` and `manifest merge`, running the binary: four shards at once on one OUT give
/// the same items and images as one plain run, request every feed page once (Pixabay's page 1
/// once per shard, to learn the page count), download each image once, and a set with a shard
/// missing is reported until that shard runs again.
@Suite("Sharding (binary)", .serialized)
struct ShardingEndToEndTests {
    /// Every request the feed answered: its path and query.
    final class RequestLog: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []

        func add(_ target: String) { lock.withLock { entries.append(target) } }
        var all: [String] { lock.withLock { entries } }
        func reset() { lock.withLock { entries.removeAll() } }
    }

    static func feed(_ log: RequestLog) throws -> DemoFeedServer {
        var options = DemoFeedOptions.small(hits: 3000, launches: 100)
        options.latencyMs = 20
        options.override = { request in
            log.add(request.method + " " + request.target)
            return nil
        }
        return try DemoFeedServer(options: options)
    }

    static func arguments(_ feed: DemoFeedServer, out: String) -> [String] {
        [
            "--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "15",
            "--per-page", "200", "--out", out, "--progress", "never", "--quiet",
        ]
    }

    static let key = ["PIXABAY_KEY": "demo-key"]

    /// (source, id, variant, sha256) of every image in OUT's archive.
    static func images(_ out: String) async throws -> Set<String> {
        var set = Set<String>()
        for item in try await Output.manifestItems(out) {
            for image in item["images"] as? [[String: Any]] ?? [] {
                set.insert("\(item["source"] ?? "")|\(item["id"] ?? "")|\(image["variant"] ?? "")|\(image["sha256"] ?? "-")")
            }
        }
        return set
    }

    /// Runs shards `indices` of `count` at once on `out`.
    static func shards(_ indices: [Int], of count: Int, feed: DemoFeedServer, out: String) async throws -> [Int32] {
        let processes = try indices.map { index in
            try BinaryProcess(arguments(feed, out: out) + ["--shard", "\(index)/\(count)"], environment: key)
        }
        var statuses: [Int32] = []
        for process in processes { statuses.append(await process.exit(timeout: 120).status) }
        return statuses
    }

    @Test func fourShardsAtOnceEqualOnePlainRun() async throws {
        try await BinaryTestGate.run {
            let log = RequestLog()
            let feed = try Self.feed(log)
            defer { feed.stop() }
            let plain = BinaryRunner.temporaryDirectory()
            let sharded = BinaryRunner.temporaryDirectory()
            defer {
                try? FileManager.default.removeItem(atPath: plain)
                try? FileManager.default.removeItem(atPath: sharded)
            }
            let run = try await BinaryProcess.run(Self.arguments(feed, out: plain), environment: Self.key, timeout: 120)
            #expect(run.status == 0, "plain run: \(run.stderr)")
            let plainRequests = log.all
            log.reset()

            #expect(try await Self.shards([0, 1, 2, 3], of: 4, feed: feed, out: sharded) == [0, 0, 0, 0])
            let shardRequests = log.all
            let merge = try await BinaryProcess.run(["manifest", "merge", "--out", sharded], timeout: 60)
            #expect(merge.status == 0, "merge: \(merge.stderr)")
            let expected = try await Self.images(plain)
            #expect(!expected.isEmpty)
            #expect(try await Self.images(sharded) == expected)

            // Feed pages: each once, but Pixabay's page 1 up to once per shard (the page count).
            func pages(_ requests: [String]) -> [Int: Int] {
                var counts: [Int: Int] = [:]
                for target in requests where target.hasPrefix("GET /api/") {
                    guard let page = target.split(separator: "&").first(where: { $0.hasPrefix("page=") })
                        .flatMap({ Int($0.dropFirst(5)) }) else { continue }
                    counts[page, default: 0] += 1
                }
                return counts
            }
            let plainPages = pages(plainRequests), shardPages = pages(shardRequests)
            #expect(plainPages.count == 15)
            #expect(Set(shardPages.keys) == Set(plainPages.keys))
            for (page, count) in shardPages {
                #expect(page == 1 ? (1...4).contains(count) : count == 1, "page \(page) requested \(count) times")
            }
            // The launch cursor chain belongs to one shard: the same GraphQL requests as plain.
            let graphql = { (requests: [String]) in requests.filter { $0.hasPrefix("POST /graphql") }.count }
            #expect(graphql(shardRequests) == graphql(plainRequests))
            // Images: at most 2 % above the distinct image URLs.
            let images = shardRequests.filter { $0.hasPrefix("GET /img/") }
            let distinct = Set(images).count
            #expect(distinct == Set(plainRequests.filter { $0.hasPrefix("GET /img/") }).count)
            #expect(Double(images.count) <= Double(distinct) * 1.02, "\(images.count) image requests for \(distinct) URLs")

            let verify = try await BinaryProcess.run(["manifest", "--out", sharded, "--verify"], timeout: 60)
            #expect(verify.status == 0, "verify: \(verify.stdout)")
        }
    }

    @Test func aMissingShardIsNamedUntilItRunsAgain() async throws {
        try await BinaryTestGate.run {
            let log = RequestLog()
            let feed = try Self.feed(log)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            // Three of four shards: the merge names the fourth, exits 1, and writes what it has.
            #expect(try await Self.shards([0, 1, 3], of: 4, feed: feed, out: out) == [0, 0, 0])
            var merge = try await BinaryProcess.run(["manifest", "merge", "--out", out], timeout: 60)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("shard 2/4: missing"), "\(merge.stderr)")
            #expect(!merge.stderr.contains("shard 0/4") && !merge.stderr.contains("shard 1/4"))
            let partial = try await Self.images(out)
            #expect(!partial.isEmpty)
            // Merging again changes nothing and still says which shard is missing.
            merge = try await BinaryProcess.run(["manifest", "merge", "--out", out], timeout: 60)
            #expect(merge.status == 1)
            #expect(try await Self.images(out) == partial)

            // Shard 2 runs: the set is complete.
            #expect(try await Self.shards([2], of: 4, feed: feed, out: out) == [0])
            merge = try await BinaryProcess.run(["manifest", "merge", "--out", out], timeout: 60)
            #expect(merge.status == 0, "\(merge.stderr)")
            let complete = try await Self.images(out)
            #expect(complete.isSuperset(of: partial) && complete.count > partial.count)
            // A second crawl where shard 1 does not run: shard 1's part is older than the rest.
            #expect(try await Self.shards([0, 2, 3], of: 4, feed: feed, out: out) == [0, 0, 0])
            merge = try await BinaryProcess.run(["manifest", "merge", "--out", out], timeout: 60)
            #expect(merge.status == 1)
            #expect(merge.stderr.contains("shard 1/4"), "\(merge.stderr)")
            #expect(try await Self.shards([1], of: 4, feed: feed, out: out) == [0])
            merge = try await BinaryProcess.run(["manifest", "merge", "--out", out], timeout: 60)
            #expect(merge.status == 0, "\(merge.stderr)")
            #expect(try await Self.images(out) == complete)
        }
    }

    @Test func runsAndShardsLockEachOtherOut() async throws {
        try await BinaryTestGate.run {
            let log = RequestLog()
            var options = DemoFeedOptions.small(hits: 400, launches: 0)
            options.latencyMs = 300
            options.override = { request in log.add(request.target); return nil }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: out) }
            let args = ["--pixabay-url", feed.pixabayURL, "--pages", "2", "--out", out, "--progress", "never", "--quiet"]
            // A shard runs: a plain run and a merge are refused; another shard is not.
            let shard = try BinaryProcess(args + ["--shard", "0/2"], environment: Self.key)
            #expect(await waitUntil(seconds: 20) { !log.all.isEmpty })
            let plain = try await BinaryProcess.run(args, environment: Self.key, timeout: 60)
            #expect(plain.status == 75, "\(plain.stderr)")
            let merge = try await BinaryProcess.run(["manifest", "merge", "--out", out], timeout: 60)
            #expect(merge.status == 75, "\(merge.stderr)")
            let sameShard = try await BinaryProcess.run(args + ["--shard", "0/2"], environment: Self.key, timeout: 60)
            #expect(sameShard.status == 75, "\(sameShard.stderr)")
            let other = try await BinaryProcess.run(args + ["--shard", "1/2"], environment: Self.key, timeout: 120)
            #expect(other.status == 0, "\(other.stderr)")
            #expect(await shard.exit(timeout: 120).status == 0)
            // A plain run holds OUT: a shard is refused.
            let running = try BinaryProcess(args, environment: Self.key)
            #expect(await waitUntil(seconds: 20) { FileManager.default.fileExists(atPath: out + "/.unfinished") })
            let refused = try await BinaryProcess.run(args + ["--shard", "1/2"], environment: Self.key, timeout: 60)
            #expect(refused.status == 75, "\(refused.stderr)")
            #expect(await running.exit(timeout: 120).status == 0)
        }
    }
}
