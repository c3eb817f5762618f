import DemoFeed
import Glibc
@testable import FeedCrawlKit
import FeedCrawlSupport

/// Counts the requests a DemoFeed override sees, by path.
final class PathCounter: @unchecked Sendable {
    private let lock = Lock()
    private var counts: [String: Int] = [:]

    func record(_ request: ServerRequest) {
        lock.withLock { counts[request.path, default: 0] += 1 }
    }

    /// Requests per path whose path starts with `prefix`.
    func counts(prefix: String) -> [String: Int] {
        lock.withLock { counts.filter { $0.key.hasPrefix(prefix) } }
    }

    func total(prefix: String) -> Int { counts(prefix: prefix).values.reduce(0, +) }
}

/// A switch flipped by tests while a server's override reads it.
final class Flag: @unchecked Sendable {
    private let lock = Lock()
    private var value: Bool
    init(_ value: Bool = false) { self.value = value }
    var isOn: Bool {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

enum CrawlFixture {
    /// A crawl of `feed` into `out`: `pixabayPages` pages of `perPage` hits and `launchesPages`
    /// pages of launches; retries almost without delay.
    static func configuration(
        _ feed: DemoFeedServer, out: String, pixabayPages: Int = 1, perPage: Int = 10, launchesPages: Int = 0
    ) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(outDirectory: out)
        if pixabayPages > 0 {
            configuration.sources.append(.pixabay(PixabaySourceConfiguration(
                url: feed.pixabayURL, key: feed.apiKey, pages: pixabayPages, perPage: perPage)))
        }
        if launchesPages > 0 {
            configuration.sources.append(.launches(LaunchesSourceConfiguration(url: feed.launchesURL, pages: launchesPages)))
        }
        configuration.retryBaseDelay = 0.001
        return configuration
    }

    /// Options whose override logs every request and then asks `answer` (nil: the feed answers).
    static func options(
        log: PathCounter, _ answer: @escaping @Sendable (ServerRequest) -> ServerResponse? = { _ in nil }
    ) -> DemoFeedOptions {
        var options = DemoFeedOptions()
        options.override = { request in
            log.record(request)
            return answer(request)
        }
        return options
    }

    static func isImage(_ request: ServerRequest) -> Bool { request.path.hasPrefix("/img/") }

    /// Runs a crawl of `configuration` and reads what it left: OUT's archive, or for a shard
    /// its part.
    static func run(_ configuration: CrawlConfiguration) async throws -> (CrawlReport, Manifest) {
        var attempt = 0
        while true {
            do {
                let report = try await Crawler(configuration: configuration).run()
                return (report, try await archivedManifest(configuration.outDirectory, shard: configuration.shard))
            } catch Crawler.SetupError.locked where attempt < 100 {
                // Another test spawning a child process at the moment the previous crawl let go
                // of the lock: the child holds a copy of every descriptor until its exec, and an
                // flock lasts while any copy is open. Wait for that exec.
                attempt += 1
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Every `.part` file under `out` (top level and cache folders).
    static func partFiles(_ out: String) -> [String] {
        var found = TestDirectory.list(out).filter { $0.hasSuffix(".part") }
        let cache = out + "/cache"
        for folder in TestDirectory.list(cache) {
            found += TestDirectory.list(cache + "/" + folder).filter { $0.hasSuffix(".part") }
        }
        return found
    }

    /// Cache files (relative to OUT), `.part` files excluded.
    static func cacheFiles(_ out: String) -> Set<String> {
        var found = Set<String>()
        let cache = out + "/cache"
        for folder in TestDirectory.list(cache) {
            for name in TestDirectory.list(cache + "/" + folder) where !name.hasSuffix(".part") {
                found.insert("cache/\(folder)/\(name)")
            }
        }
        return found
    }

    /// A valid PNG of `side` × `side` pixels padded to about `bytes` bytes with a tEXt chunk.
    static func png(side: Int, bytes: Int = 1200, seed: UInt8 = 1) -> [UInt8] {
        let base = ImageFixtures.png(width: side, height: side)
        let padding = max(0, bytes - base.count - 12)
        // Insert the padding chunk before IEND (the last 12 bytes).
        return Array(base.dropLast(12)) + ImageFixtures.pngChunk("tEXt", [UInt8](repeating: seed, count: padding))
            + Array(base.suffix(12))
    }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }
}
