import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

/// A feed whose every answer the test scripts: one real Pixabay page and its images are taken
/// from a plain `DemoFeedServer` ("origin"), then served by a second server ("front") through
/// `DemoFeedOptions.override`, with whatever framing or fault the test chooses per request.
/// The page's image URLs point at the front server (rewritten per request from its Host header).
final class ScriptedFeed: @unchecked Sendable {
    /// Answers an image request: the hit's index on the page, the attempt number (1-based) for
    /// this path, the path, the true image bytes and the origin's base URL. Nil serves the image
    /// plainly (Content-Length framing).
    typealias ImageScript = @Sendable (_ index: Int, _ attempt: Int, _ path: String, _ bytes: [UInt8], _ origin: String) -> ServerResponse?
    /// Answers the page request: the page JSON (image URLs already pointing at the front) and
    /// the front's base URL.
    typealias PageScript = @Sendable (_ json: [UInt8], _ front: String) -> ServerResponse
    /// Answers any other path (nil: 404).
    typealias OtherScript = @Sendable (_ request: ServerRequest, _ front: String) -> ServerResponse?

    static let placeholder = "http://front.invalid"

    let origin: DemoFeedServer
    private(set) var front: DemoFeedServer!
    /// Image path → true bytes, and path → index on the page.
    let images: [String: [UInt8]]
    let indexOfPath: [String: Int]
    let paths: [String]
    private let attempts = Locked<[String: [ContinuousClock.Instant]]>([:])

    /// Fetches page 1 (`perPage` hits) and its preview images from a fresh origin server.
    init(
        perPage: Int, page: PageScript? = nil, other: OtherScript? = nil, image: @escaping ImageScript
    ) async throws {
        let origin = try DemoFeedServer()
        self.origin = origin
        let config = PixabaySourceConfiguration(url: origin.pixabayURL, key: origin.apiKey, perPage: perPage)
        let (json, urls) = try await HTTPEngine.withEngine { engine in
            let response = try await engine.perform(HTTPRequest(url: config.pageURL(1)))
            let decoded = try PixabayPage.decode(response.body, page: 1)
            return (response.body, decoded.items.compactMap { $0.images.first?.url })
        }
        var images: [String: [UInt8]] = [:]
        var indexOfPath: [String: Int] = [:]
        var paths: [String] = []
        try await HTTPEngine.withEngine { engine in
            for (index, url) in urls.enumerated() {
                let path = String(url.dropFirst(origin.baseURL.count))
                images[path] = try await engine.perform(HTTPRequest(url: url)).body
                indexOfPath[path] = index
                paths.append(path)
            }
        }
        self.images = images
        self.indexOfPath = indexOfPath
        self.paths = paths
        let pageJSON = Array(String(decoding: json, as: UTF8.self)
            .replacing(origin.baseURL, with: Self.placeholder).utf8)
        let originBase = origin.baseURL
        var options = DemoFeedOptions()
        options.override = { [images, indexOfPath, attempts] request in
            let host = "http://" + (request.header("host") ?? "127.0.0.1")
            if request.path == "/api/" {
                let body = Array(String(decoding: pageJSON, as: UTF8.self)
                    .replacing(Self.placeholder, with: host).utf8)
                return page?(body, host) ?? .json(body)
            }
            guard let bytes = images[request.path], let index = indexOfPath[request.path] else {
                return other?(request, host) ?? .text("not scripted", status: 404)
            }
            let attempt = attempts.withLock { all -> Int in
                all[request.path, default: []].append(.now)
                return all[request.path]!.count
            }
            return image(index, attempt, request.path, bytes, originBase)
                ?? ServerResponse(headers: [("Content-Type", "image/jpeg")], body: .bytes(bytes))
        }
        front = try DemoFeedServer(options: options)
    }

    deinit {
        front?.stop()
        origin.stop()
    }

    /// When each request for `path` arrived at the front server.
    func requestTimes(_ path: String) -> [ContinuousClock.Instant] {
        attempts.withLock { $0[path] ?? [] }
    }

    /// A crawl of the front server's page 1 into `out`.
    func configuration(out: String, perPage: Int) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(outDirectory: out, sources: [
            .pixabay(PixabaySourceConfiguration(url: front.pixabayURL, key: front.apiKey, pages: 1, perPage: perPage)),
        ])
        configuration.retryBaseDelay = 0.01
        configuration.concurrency = 16
        configuration.perHost = 16
        return configuration
    }

    /// The manifest item whose image has `path`.
    static func item(_ items: [ManifestItem], path: String) -> ManifestItem? {
        items.first { $0.images.contains { $0.url.hasSuffix(path) } }
    }
}
