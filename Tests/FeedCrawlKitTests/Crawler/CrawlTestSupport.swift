import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage


/// Paths of 40 distinct small PNG images that every feed made with `DemoFeedOptions.observing`
/// serves (`/fixture/<n>.png`); any image will do as a fixture's image.
let demoImagePaths: [String] = (0..<40).map { "/fixture/\($0).png" }

/// The fixture image at `path`, or nil when `path` is not one.
func fixtureImage(_ path: String) -> ServerResponse? {
    guard path.hasPrefix("/fixture/"), path.hasSuffix(".png"),
          let n = Int(path.dropFirst("/fixture/".count).dropLast(".png".count)), (0..<1000).contains(n) else { return nil }
    let png = ImageFixtures.png(width: n + 1, height: n + 1) + Array(repeating: UInt8(n & 0xFF), count: 64)
    return ServerResponse(status: 200, headers: [("Content-Type", "image/png")], body: .bytes(png))
}

/// Requests a DemoFeed saw (install with `DemoFeedOptions.observing`), thread-safe.
final class RequestLog: @unchecked Sendable {
    struct Entry: Sendable {
        var method: String
        var target: String
        var path: String
        var query: [String: String]
        var body: String
    }

    private let lock = Lock()
    private var entries: [Entry] = []

    func add(_ request: ServerRequest) {
        let entry = Entry(
            method: request.method, target: request.target, path: request.path, query: request.query,
            body: String(decoding: request.body, as: UTF8.self))
        lock.withLock { entries.append(entry) }
    }

    var all: [Entry] { lock.withLock { entries } }
    func count(path: String) -> Int { all.filter { $0.path == path }.count }
    func count(where predicate: (Entry) -> Bool) -> Int { all.filter(predicate).count }
}

extension DemoFeedOptions {
    /// Options whose override logs every request into `log`, then answers with `answer`, or
    /// with a fixture image (`demoImagePaths`), or else as the demo feed normally does.
    static func observing(
        _ log: RequestLog, _ answer: @escaping @Sendable (ServerRequest) -> ServerResponse? = { _ in nil }
    ) -> DemoFeedOptions {
        var options = DemoFeedOptions()
        options.override = { request in
            log.add(request)
            return answer(request) ?? fixtureImage(request.path)
        }
        return options
    }
}

/// A finished crawl and the manifest it wrote.
struct CrawlRun {
    var report: CrawlReport
    var manifest: Manifest

    var items: [ManifestItem] { manifest.items }
    func items(_ source: String) -> [ManifestItem] { manifest.items.filter { $0.source == source } }
    func item(_ source: String, _ id: String) -> ManifestItem? {
        manifest.items.first { $0.source == source && $0.id == id }
    }
    func report(_ source: String) -> SourceReport? { report.sources.first { $0.name == source } }
}

/// Runs a crawl of `sources` into `out` with fast retries, and loads its manifest.
func runCrawl(
    _ sources: [SourceConfiguration], out: String, configure: (inout CrawlConfiguration) -> Void = { _ in }
) async throws -> CrawlRun {
    var configuration = CrawlConfiguration(outDirectory: out, sources: sources)
    configuration.retryBaseDelay = 0.01
    configure(&configuration)
    let report = try await Crawler(configuration: configuration).run()
    return CrawlRun(report: report, manifest: try await archivedManifest(out))
}

/// The items of OUT (or of shard `shard`'s part of it) as the archive holds them now, with its
/// root's run record and time: the repository opened on the folder (`Backends.folder`), every
/// item read with `forEachItem` in the manifest's order, as `feedcrawl manifest export` reads
/// them (what an unfinished run journaled included). `version` is the root's format version.
func archivedManifest(_ out: String, shard: Shard? = nil) async throws -> Manifest {
    let repository = try await Repository.open(Backends.folder(out), state: shard.map { $0.directory + "/" } ?? "")
    var items: [ManifestItem] = []
    try await repository.forEachItem { items.append($0) }
    var manifest = Manifest(generatedAt: repository.root.generatedAt, run: repository.root.run, items: items)
    manifest.version = repository.root.version
    return manifest
}

/// Pixabay source on a demo feed.
func pixabaySource(_ feed: DemoFeedServer, pages: Int = 5, perPage: Int = 20, key: String? = nil) -> SourceConfiguration {
    var config = PixabaySourceConfiguration(url: feed.pixabayURL, key: key ?? feed.apiKey, pages: pages, perPage: perPage)
    config.pageTTL = 0
    return .pixabay(config)
}

/// Launches source on a demo feed.
func launchesSource(
    _ feed: DemoFeedServer, pages: Int = 5, details: Bool = false,
    variants: [LaunchesQuery.PatchSize] = [.small]
) -> SourceConfiguration {
    var config = LaunchesSourceConfiguration(url: feed.launchesURL, pages: pages)
    config.details = details
    config.variants = variants
    return .launches(config)
}

extension ManifestItem {
    /// The item's image when it has exactly one (the crawls of one variant); nil otherwise.
    var soleImage: ImageRecord? { images.count == 1 ? images[0] : nil }
}

/// `feedcrawl manifest --verify` of `out`: every referenced file present with its recorded
/// size and SHA-256, no file unreferenced.
func verifyCache(_ out: String) async throws -> CacheVerification {
    let reader = try await ArchiveReader.open(outDirectory: out, objectStore: nil, network: HTTPEngine.Configuration())
    return try await reader.verify()
}

/// Feed bodies built the way the real services shape them (see the samples' notes).
enum FeedBodies {
    /// One Pixabay hit; `id` is JSON (`195893` or `"195893"`), `preview` the previewURL (may be "").
    static func hit(id: String, preview: String, extra: String = "") -> String {
        #"{"id":\#(id),"pageURL":"https://pixabay.com/photos/x/","type":"photo","tags":"blossom, bloom, flower","previewURL":"\#(preview)","previewWidth":150,"previewHeight":99,"webformatURL":"","largeImageURL":"","user":"Josch13","userImageURL":""\#(extra)}"#
    }

    static func pixabayPage(total: Int, totalHits: Int, hits: [String]) -> ServerResponse {
        .json(Array(#"{"total":\#(total),"totalHits":\#(totalHits),"hits":[\#(hits.joined(separator: ","))]}"#.utf8))
    }

    /// One launch of a `LaunchList` answer; nil fields are JSON null.
    static func launch(id: String, site: String? = "KSC LC 39A", mission: String? = "CRS-21", patch: String?) -> String {
        func quoted(_ s: String?) -> String { s.map { "\"\($0)\"" } ?? "null" }
        let missionJSON = mission == nil && patch == nil
            ? "null" : #"{"name":\#(quoted(mission)),"missionPatch":\#(quoted(patch))}"#
        return #"{"id":"\#(id)","site":\#(quoted(site)),"mission":\#(missionJSON)}"#
    }

    static func launchesPage(cursor: String, hasMore: Bool, launches: [String], errors: String? = nil) -> ServerResponse {
        let data = #"{"launches":{"cursor":"\#(cursor)","hasMore":\#(hasMore),"launches":[\#(launches.joined(separator: ","))]}}"#
        let body = errors.map { #"{"errors":\#($0),"data":\#(data)}"# } ?? #"{"data":\#(data)}"#
        return .json(Array(body.utf8))
    }
}

/// The `after` cursor of a LaunchList request body, nil when absent.
func cursorOf(_ request: ServerRequest) -> String? {
    let body = String(decoding: request.body, as: UTF8.self)
    let marker = #""cursor":""#
    guard let range = body.firstRange(of: marker) else { return nil }
    let rest = body[range.upperBound...]
    return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
}

/// Whether a GraphQL request body is the LaunchList operation.
func isLaunchList(_ request: ServerRequest) -> Bool {
    String(decoding: request.body, as: UTF8.self).contains(#""operationName":"LaunchList""#)
}

/// SHA-256 (hex) of a file under `out`.
func fileSHA256(_ out: String, _ relative: String) -> String? {
    guard let bytes = try? FileIO.read(out + "/" + relative) else { return nil }
    return SHA256.hex(bytes)
}

/// A fresh output folder for a crawl, removed with everything in it when released: in
/// /dev/shm when there is one (the crawler fsyncs a lot; on tmpfs that costs nothing, so the
/// crawler suites do not stall the other suites), else in /tmp.
final class CrawlDirectory {
    let path: String

    init() {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(base)/feedcrawl-crawl-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let pointer = buffer.baseAddress, let result = mkdtemp(pointer) else { return nil }
            return String(cString: result)
        }
        guard let made else { preconditionFailure("mkdtemp failed: errno \(errno)") }
        path = made
    }

    deinit { TestDirectory.removeTree(path) }
}

/// Leaves in OUT (`out`) the intent file a killed run would have: the cache keys (64 hex digits
/// each, or the name of a cache file) it declared before fetching (`RunIntents`). Returns its path.
@discardableResult
func plantIntent(_ keys: [String], in out: String) throws -> String {
    let path = out + "/archive/intents/20260101000000000-1a2b3c4d-1"
    var bytes: [UInt8] = []
    for text in keys {
        let name = text.split(separator: "/").last.map(String.init) ?? text
        guard let key = UInt64(String(name.prefix(16)), radix: 16) else { continue }
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: key >> UInt64(56 - 8 * $0)) }
    }
    try writeFile(bytes, to: path)
    return path
}

/// Writes `bytes` to `path` atomically, making its folder (and the folders above) first: a file
/// under OUT as a run would have left it.
func writeFile(_ bytes: [UInt8], to path: String) throws {
    try AtomicFile.createDirectories(FileIO.directoryName(of: path))
    try AtomicFile.write(bytes, to: path)
}

extension ImageRecord.Outcome {
    /// The file facts alone (status and error set aside), to compare two outcomes' files.
    var facts: Self {
        var facts = self
        facts.status = .downloaded
        facts.error = nil
        return facts
    }
}
