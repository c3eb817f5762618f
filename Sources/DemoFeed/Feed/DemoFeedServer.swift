/// The in-process demo feed on 127.0.0.1 (port chosen by the OS unless given), modelled on the benchmark's
/// `feedserver.py`: `GET /api/` (Pixabay-style), `POST /graphql` (launches: feedcrawl's `LaunchList`
/// and `LaunchDetails` documents only), `GET /img/...`
/// (generated JPEG/PNG with ETag/Last-Modified/304/Range), `GET /expected`, `GET /stats`,
/// `POST /stats/reset`. Faults (failRate, truncateRate, rateLimit, latencyMs) apply to
/// `/api/`, `/graphql` and `/img/` only, and depend on seed, request and attempt number.
public final class DemoFeedServer: @unchecked Sendable {
    private let state: FeedState
    private let server: HTTPServer

    /// The options it was started with.
    public var options: DemoFeedOptions { state.options }

    /// Starts serving on 127.0.0.1 (never another address) on `port`; the default, 0, lets the
    /// OS choose a free port. Default options: see `DemoFeedOptions`. Throws when the port
    /// cannot be bound (for example when it is in use).
    public init(options: DemoFeedOptions = .init(), port: UInt16 = 0) throws {
        let state = FeedState(options: options)
        self.state = state
        server = try HTTPServer(host: "127.0.0.1", port: port) { request in state.handle(request) }
        state.base = server.baseURL
    }

    deinit {
        server.stop()
    }

    /// "http://127.0.0.1:PORT".
    public var baseURL: String { server.baseURL }
    /// The Pixabay-style endpoint, baseURL + "/api/".
    public var pixabayURL: String { baseURL + "/api/" }
    /// The GraphQL endpoint, baseURL + "/graphql".
    public var launchesURL: String { baseURL + "/graphql" }
    /// A key `/api/` accepts: `options.apiKey`, or "demo-key" when any key is accepted.
    public var apiKey: String { options.apiKey ?? "demo-key" }
    /// The bound port.
    public var port: UInt16 { server.port }
    /// Requests answered (all routes).
    public var requestCount: Int { server.requestCount }
    /// Connections accepted.
    public var connectionCount: Int { server.connectionCount }

    /// The images a crawler must store, like feedserver's `/expected`: every hit's previewURL
    /// (totalHits of them) and each distinct non-null SMALL mission patch, with the SHA-256 (hex) of the content.
    public var expectedImages: [(url: String, sha256Hex: String)] {
        state.expected().map { ($0.url, $0.sha256Hex) }
    }

    /// Counters since start or the last reset.
    public func stats() -> DemoFeedStats { state.snapshot() }

    /// Zeroes the counters and also forgets attempt numbers and rate-limit windows.
    public func resetStats() { state.resetStats() }

    /// Stops serving (see `HTTPServer.stop()`); idempotent, also run by deinit.
    public func stop() { server.stop() }
}

/// Runs `body` with a fresh `DemoFeedServer`, stopping it afterwards even on error.
public func withDemoFeed<T>(options: DemoFeedOptions = .init(),
                            _ body: (DemoFeedServer) async throws -> T) async throws -> T {
    let feed = try DemoFeedServer(options: options)
    defer { feed.stop() }
    return try await body(feed)
}
