import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlStorage
import FeedCrawlHTTP

/// A cancelled crawl (a signal, the deadline) gets no feed page from anywhere: not from the
/// network (the engine aborts the request), nor from the page cache or a recording, which
/// answer without a request to abort.
@Suite("Feed client under cancellation")
struct FeedClientCancellationTests {
    /// `fetch` in a task cancelled before it asks: "page" or "cancelled" (or the error).
    static func fetchCancelled(_ client: FeedClient, _ request: HTTPRequest, cancel: Bool) async -> String {
        await Task {
            if cancel { withUnsafeCurrentTask { $0?.cancel() } }
            do {
                _ = try await client.fetch(request)
                return "page"
            } catch is CancellationError {
                return "cancelled"
            } catch {
                return "\(error)"
            }
        }.value
    }

    @Test(arguments: ["page cache", "replay"])
    func aCancelledTaskGetsNoStoredPage(from origin: String) async throws {
        let folder = TestDirectory()
        let store = FeedExchangeStore(root: folder.file("replay"))
        let kept = KeptPages(backend: try Backends.folder(folder.path), maxFileBytes: 1 << 20)
        let redactor = SecretRedactor(secrets: [])
        // Port 9 (discard) on loopback: were the request sent, it would fail, not answer.
        let request = HTTPRequest(url: "http://127.0.0.1:9/api/?page=1")
        let identity = FeedRequestIdentity(request, redactor: redactor)
        let exchange = FeedExchange(
            source: "pixabay", request: identity,
            response: HTTPResponse(status: 200, headers: [HTTPHeader(name: "Content-Type", value: "application/json")],
                                   body: Array(#"{"total":0,"totalHits":0,"hits":[]}"#.utf8)),
            redactor: redactor)
        try store.save(exchange)
        try await kept.save(exchange)
        let engine = try HTTPEngine()
        defer { engine.shutdown() }
        let setup = origin == "replay"
            ? FeedClient.Setup(replay: store)
            : FeedClient.Setup(pageTTL: 3600, pageCache: kept)
        let client = FeedClient(source: "pixabay", engine: engine, limits: .init(), redactor: redactor, setup: setup)
        #expect(await Self.fetchCancelled(client, request, cancel: false) == "page")
        #expect(await Self.fetchCancelled(client, request, cancel: true) == "cancelled")
    }
}
