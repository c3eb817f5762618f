import FeedCrawlKit
import Foundation
import FeedCrawlSupport
import FeedCrawlHTTP

/// What a server sends for image URLs, fetched here over loopback with FeedCrawlKit's own
/// `HTTPEngine` (independently of the binary): the SHA-256 of each URL's body, to hold the
/// files a crawl stored to the server's bytes. These requests count in the server's stats.
enum ServerImages {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The lowercase hex SHA-256 of the body each of `urls` answers with (status 200 required).
    static func sha256<S: Sequence<String>>(of urls: S) async throws -> [String: String] {
        let distinct = Set(urls)
        guard !distinct.isEmpty else { return [:] }
        return try await HTTPEngine.withEngine(configuration: .init(maxConcurrentTransfers: 8)) { engine in
            try await withThrowingTaskGroup(of: (String, String).self) { group in
                for url in distinct {
                    group.addTask {
                        let response = try await engine.perform(HTTPRequest(url: url))
                        guard response.status == 200 else {
                            throw Failure(description: "\(url): HTTP \(response.status)")
                        }
                        return (url, SHA256.hex(response.body))
                    }
                }
                var hashes: [String: String] = [:]
                for try await (url, sha) in group { hashes[url] = sha }
                return hashes
            }
        }
    }

    /// Adds to `known` the hashes of the URLs of `items`' images it does not hold yet.
    static func complete(_ known: inout [String: String], for items: [ManifestItem]) async throws {
        let missing = items.flatMap(\.images).map(\.url).filter { known[$0] == nil && $0.hasPrefix("http") }
        for (url, sha) in try await sha256(of: missing) { known[url] = sha }
    }
}
