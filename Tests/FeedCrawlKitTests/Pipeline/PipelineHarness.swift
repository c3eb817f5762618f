import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

/// One `ImagePipeline` as `Crawler.run` builds it, over a real libcurl engine, a fresh OUT
/// folder with its journal, and a loopback `HTTPServer` that the test scripts; nothing faked.
final class PipelineHarness: @unchecked Sendable {
    let out = CrawlDirectory()
    let layout: CacheLayout
    let engine: HTTPEngine
    let journal: Journal
    let recorder: RunItems
    let pipeline: ImagePipeline
    /// The run's `CrawlStorage` (a manifest reserve in OUT), when asked for.
    let storage: CrawlStorage?
    let server: HTTPServer
    let requests = RequestLog()
    private let eventList = Locked<[CrawlEvent]>([])

    /// Settings as the crawler's defaults, with two retries 10 ms apart, and loopback addresses
    /// allowed (the test server is on one, as a feed on loopback would be).
    static var settings: ImagePipeline.Settings {
        var settings = ImagePipeline.Settings()
        settings.privateAddresses = PrivateAddressScope(allowed: true)
        settings.policy.retry = RetryPolicy(retries: 2, baseDelay: 0.01)
        return settings
    }

    /// `answer` serves every request (it runs on the server's connection thread and may block).
    /// `store` is where images go: the local directory of OUT when nil.
    init(
        settings: ImagePipeline.Settings = PipelineHarness.settings, archive: ArchiveIndex = ArchiveIndex(),
        withStorage: Bool = false, store: (any CacheStore)? = nil,
        _ answer: @escaping @Sendable (ServerRequest) -> ServerResponse
    ) throws {
        layout = CacheLayout(outDirectory: out.path)
        let store = store ?? LocalCacheStore(layout: layout)
        try store.prepare()
        storage = withStorage ? try CrawlStorage(layout: layout, previousManifestBytes: 0) { _ in } : nil
        engine = try HTTPEngine(configuration: .init(maxConcurrentTransfers: settings.limits.concurrency))
        journal = try Journal(path: layout.journalPath)
        let eventList = self.eventList
        let events: @Sendable (CrawlEvent) -> Void = { event in eventList.withLock { $0.append(event) } }
        recorder = RunItems(journal: journal, spill: Spill(directory: out.path), runStarted: Date(), events: events)
        pipeline = ImagePipeline(
            engine: engine, store: store, settings: settings,
            archive: archive, recorder: recorder, storage: storage, events: events)
        let requests = self.requests
        server = try HTTPServer { request in
            requests.add(request)
            return answer(request)
        }
    }

    deinit {
        engine.shutdown()
        server.stop()
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { server.baseURL + path }

    /// An item of source `s` whose images are `(variant, path on the server)`.
    func item(_ id: String, page: Int = 1, _ images: [(String, String)]) -> FeedItem {
        FeedItem(source: "s", id: id, page: page, title: "item \(id)",
                 images: images.map { FeedImage(variant: $0.0, url: url($0.1)) })
    }

    /// Waits for every image, records what is pending, and returns the journal's items by id
    /// (each id must be recorded once).
    func finish() async throws -> [String: ManifestItem] {
        await pipeline.drain()
        pipeline.finish()
        try journal.flush()
        var items: [String: ManifestItem] = [:]
        try Journal.read(path: layout.journalPath) { item, _ in
            #expect(items[item.id] == nil, "item \(item.id) recorded twice")
            items[item.id] = item
        }
        return items
    }

    /// Every event so far.
    var events: [CrawlEvent] { eventList.withLock { $0 } }

    /// The `retrying` events so far: (url, attempt, delay).
    var retries: [(url: String, attempt: Int, delay: Double)] {
        events.compactMap { event in
            if case .retrying(let url, let attempt, let delay, _, _) = event { return (url, attempt, delay) }
            return nil
        }
    }

    /// Requests the server saw for `path`.
    func count(_ path: String) -> Int { requests.count(path: path) }
}

/// A door a server thread waits at until the test opens it (at most 30 s, so a failing test
/// cannot hang its server for ever). Thread-safe.
final class Gate: @unchecked Sendable {
    private let isOpen = Locked(false)
    private let waitingCount = Locked(0)

    func open() { isOpen.withLock { $0 = true } }

    /// Blocks the calling (server) thread until `open()`.
    func wait() {
        waitingCount.withLock { $0 += 1 }
        var waited = 0
        while !isOpen.withLock({ $0 }), waited < 30_000 {
            usleep(1000)
            waited += 1
        }
    }

    /// How many threads ever waited here.
    var waited: Int { waitingCount.withLock { $0 } }
}

/// Image answers for the pipeline's tests.
enum PipelineImages {
    /// A distinct valid PNG for each path (its size and padding derive from the path).
    static func png(_ path: String) -> [UInt8] {
        let seed = path.utf8.reduce(UInt8(7)) { $0 &* 31 &+ $1 }
        return CrawlFixture.png(side: 8 + Int(seed % 16), bytes: 600 + Int(seed % 50), seed: seed)
    }

    static func serve(_ path: String, etag: String? = nil) -> ServerResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "image/png")]
        if let etag { headers.append(("ETag", etag)) }
        return ServerResponse(headers: headers, body: .bytes(png(path)))
    }
}
