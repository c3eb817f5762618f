import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// One `ImagePipeline` as `Crawler.run` builds it, over a real libcurl engine, a backend (a
/// fresh OUT folder by default, or the one given, e.g. `Backends.memory()`), a `PageRecorder`
/// journaling the run's pages into a `RunJournal` on it, and a loopback `HTTPServer` that the
/// test scripts; nothing faked.
final class PipelineHarness: @unchecked Sendable {
    let out = CrawlDirectory()
    /// Where the images and the journal go: the folder `out` unless another backend was given.
    let backend: any Backend
    let engine: HTTPEngine
    let journal: RunJournal
    let recorder: PageRecorder
    let pipeline: ImagePipeline
    /// The run's `CrawlStorage` (a reserve in OUT, on a store that can fill up), when asked for.
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
    /// `backend` is where images and the journal go: the folder `out` when nil. `archive` is what
    /// earlier runs stored (nil: nothing).
    init(
        settings: ImagePipeline.Settings = PipelineHarness.settings, archive: Repository? = nil,
        withStorage: Bool = false, backend: (any Backend)? = nil,
        _ answer: @escaping @Sendable (ServerRequest) -> ServerResponse
    ) throws {
        let backend = try backend ?? Backends.folder(out.path)
        self.backend = backend
        storage = withStorage ? try CrawlStorage(backend: backend) { _ in } : nil
        engine = try HTTPEngine(configuration: .init(maxConcurrentTransfers: settings.limits.concurrency))
        let started = Date()
        journal = RunJournal(
            backend: backend, started: Int64((started.timeIntervalSince1970 * 1000).rounded()),
            firstNumber: archive?.root.nextGroup ?? 1)
        let eventList = self.eventList
        let events: @Sendable (CrawlEvent) -> Void = { event in eventList.withLock { $0.append(event) } }
        recorder = PageRecorder(journal: journal, runStarted: started, events: events)
        pipeline = ImagePipeline(
            engine: engine, backend: backend, settings: settings,
            archive: archive, recorder: recorder, intents: RunIntents(backend: backend, state: "", run: journal.run),
            storage: storage, events: events)
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

    /// Waits for every image, records what is pending, journals every page, and returns the
    /// journal's items by id, read back from the journal files as saved (each id must be
    /// recorded once).
    func finish() async throws -> [String: ManifestItem] {
        await pipeline.drain()
        await pipeline.finish()
        try await journal.flush()
        var items: [String: ManifestItem] = [:]
        for item in try await journaledItems() {
            #expect(items[item.id] == nil, "item \(item.id) recorded twice")
            items[item.id] = item
        }
        return items
    }

    /// Every item of every group the journal saved, in journal order, read back from the files.
    func journaledItems() async throws -> [ManifestItem] {
        var items: [ManifestItem] = []
        for entry in journal.groups {
            let handle = try #require(FileHandle(.archive, entry.segment))
            let bytes = try await backend.load(handle, range: entry.offset..<(entry.offset + entry.length), maxBytes: entry.length)
            items += try GroupCodec.decode(bytes).items
        }
        return items
    }

    /// The bytes of every journal file saved so far, one after the other.
    func journalBytes() async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for segment in journal.segments {
            let handle = try #require(FileHandle(.archive, segment.name))
            bytes += try await backend.load(handle, range: nil, maxBytes: 1 << 30)
        }
        return bytes
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

extension ImagePipeline {
    /// Registers `page` as one feed page (its listing: the first item's source and page, no
    /// digest or recipe), as a source does (`submit(_:group:listing:awaitingDetails:)`).
    @discardableResult
    func submit(_ page: [FeedItem], group: Int, awaitingDetails: Bool = false) async -> [Int?] {
        let listing = PageListing(source: page.first?.source ?? "s", page: page.first?.page ?? 1, digest: nil, recipe: nil)
        return await submit(page, group: group, listing: listing, awaitingDetails: awaitingDetails)
    }
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
