import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// Runs whole crawls in-process against a `DemoFeedServer` and checks what they leave in OUT.
struct CrawlHarness {
    let feed: DemoFeedServer
    let out: String

    /// A Pixabay source (and, with `launches`, the GraphQL source) of `feed`; fast retries.
    func configuration(pages: Int = 1, perPage: Int = 20, launches: Bool = false) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(outDirectory: out, sources: [
            .pixabay(PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, pages: pages, perPage: perPage)),
        ])
        if launches {
            configuration.sources.append(.launches(LaunchesSourceConfiguration(url: feed.launchesURL, pages: pages)))
        }
        configuration.retries = 2
        configuration.retryBaseDelay = 0.01
        configuration.concurrency = 8
        return configuration
    }

    func run(_ configuration: CrawlConfiguration) async throws -> CrawlReport {
        try await Crawler(configuration: configuration).run()
    }

    /// The archive in OUT, read by the library (`archivedManifest`).
    func manifest() async throws -> Manifest {
        try await archivedManifest(out)
    }

    /// The items of `manifest()` by id.
    func itemsByID() async throws -> [String: ManifestItem] {
        Dictionary(try await manifest().items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }
}

/// Checks an output folder independently of `CacheVerifier`: every image that says it has a
/// file has one, at a valid cache path, with the recorded size and SHA-256. Returns the problems.
enum CacheCheck {
    static func problems(out: String) async -> [String] {
        let manifest: Manifest
        do {
            manifest = try await archivedManifest(out)
        } catch {
            return ["the archive does not load: \(error)"]
        }
        let layout = CacheLayout(outDirectory: out)
        var problems: [String] = []
        for item in manifest.items {
            for image in item.images {
                let name = "\(item.id)/\(image.variant)"
                if image.status.hasImage, image.file == nil {
                    problems.append("\(name): \(image.status.rawValue) without a file")
                }
                guard let file = image.file else { continue }
                guard CacheLayout.isValidRelativePath(file) else {
                    problems.append("\(name): invalid path \(file)")
                    continue
                }
                guard let bytes = readWholeFile(layout.absolutePath(file)) else {
                    problems.append("\(name): \(file) missing")
                    continue
                }
                if let size = image.bytes, size != Int64(bytes.count) {
                    problems.append("\(name): \(file) has \(bytes.count) bytes, manifest says \(size)")
                }
                if image.sha256 != SHA256.hex(bytes) {
                    problems.append("\(name): \(file) sha256 differs from the manifest")
                }
            }
        }
        return problems
    }

    /// Files an interrupted or failed run may leave and a finished one must not: `.part` files
    /// anywhere under OUT, the reserve, an earlier release's journal, the marker of a run in
    /// progress.
    static func leftovers(out: String) -> [String] {
        var found: [String] = []
        walk(out) { path in
            let name = FileIO.fileName(of: path)
            if name.hasSuffix(".part") || name == CrawlStorage.reserveName
                || name == CacheLayout.journalFileName || name == ".unfinished" {
                found.append(String(path.dropFirst(out.count + 1)))
            }
        }
        return found
    }

    static func walk(_ path: String, _ body: (String) -> Void) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in TestDirectory.list(path) { walk(path + "/" + name, body) }
        } else {
            body(path)
        }
    }
}

func readWholeFile(_ path: String) -> [UInt8]? {
    try? FileIO.read(path)
}
