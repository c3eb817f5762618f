import FeedCrawlKit
import Glibc
import FeedCrawlSupport

/// The demo feed's request handler: fault injection, routing, counters (thread-safe).
final class FeedState: @unchecked Sendable {
    enum Route {
        case api, graphql, images, other
    }

    let options: DemoFeedOptions
    let dataset: FeedDataset
    let lock = Lock()

    // Guarded by `lock`.
    private var baseURL = "http://127.0.0.1"
    private var stats = DemoFeedStats()
    private var attempts: [String: Int] = [:]
    var rateWindows: [String: (start: Double, count: Int)] = [:]
    var etags: [String: String] = [:]
    private var expectedCache: [(url: String, sha256Hex: String, bytes: Int)]?

    /// Bound on remembered request keys (then forgotten, i.e. counted afresh).
    static let maxAttemptKeys = 200_000

    init(options: DemoFeedOptions) {
        self.options = options
        self.dataset = FeedDataset(options: options)
    }

    var base: String {
        get { lock.withLock { baseURL } }
        set { lock.withLock { baseURL = newValue } }
    }

    func snapshot() -> DemoFeedStats { lock.withLock { stats } }

    func resetStats() {
        lock.withLock {
            stats = DemoFeedStats()
            attempts.removeAll()
            rateWindows.removeAll()
        }
    }

    /// The handler given to `HTTPServer`.
    func handle(_ request: ServerRequest) -> ServerResponse {
        let route = Self.route(of: request.path)
        if let override = options.override, let response = override(request) {
            record(route, response, injected: false, truncated: false)
            return response
        }
        switch (request.method, request.path) {
        case ("GET", "/expected"): return .json(expectedJSON().bytes())
        case ("GET", "/stats"): return .json(snapshot().json().bytes())
        case ("POST", "/stats/reset"):
            resetStats()
            return .json(Array("{\"ok\":true}".utf8))
        default: break
        }
        if route == .other {
            let response = ServerResponse.text("404: Not Found", status: 404)
            record(route, response, injected: false, truncated: false)
            return response
        }
        var key = "\(request.method) \(request.target)"
        if request.method == "POST" { key += " " + SHA256.hex(request.body) }
        let attempt: Int = lock.withLock {
            if attempts.count >= Self.maxAttemptKeys { attempts.removeAll() }
            let n = attempts[key, default: 0]
            attempts[key] = n + 1
            return n
        }
        let seed = options.seed
        var response: ServerResponse
        var injected = false, truncated = false
        if options.failRate > 0, SeededRandom.uniform(seed, "fail", key, String(attempt)) < options.failRate {
            injected = true
            response = .text("injected failure\n", status: options.failStatus)
            if options.failStatus == 503 { response.headers.append(("Retry-After", String(options.retryAfterSeconds))) }
        } else {
            switch route {
            case .api:
                response = request.method == "GET" ? pixabay(request) : Self.methodNotAllowed("GET")
            case .graphql:
                response = request.method == "POST" ? graphql(request) : Self.methodNotAllowed("POST")
            case .images:
                let truncate = options.truncateRate > 0
                    && SeededRandom.uniform(seed, "truncate", key, String(attempt)) < options.truncateRate
                (response, truncated) = request.method == "GET" ? image(request, truncate: truncate)
                    : (Self.methodNotAllowed("GET"), false)
            case .other:
                response = .text("404: Not Found", status: 404) // handled above
            }
        }
        response.delayMs = max(0, options.latencyMs)
        record(route, response, injected: injected, truncated: truncated)
        return response
    }

    static func route(of path: String) -> Route {
        if path.hasPrefix("/api/") { return .api }
        if path == "/graphql" || path.hasPrefix("/graphql/") { return .graphql }
        if path.hasPrefix("/img/") { return .images }
        return .other
    }

    static func methodNotAllowed(_ allowed: String) -> ServerResponse {
        var r = ServerResponse.text("405: Method Not Allowed", status: 405)
        r.headers.append(("Allow", allowed))
        return r
    }

    private func record(_ route: Route, _ response: ServerResponse, injected: Bool, truncated: Bool) {
        lock.withLock {
            switch route {
            case .api: stats.api += 1
            case .graphql: stats.graphql += 1
            case .images: stats.images += 1
            case .other: stats.other += 1
            }
            if response.status == 304 { stats.notModified += 1 }
            if response.status == 429 { stats.rateLimited += 1 }
            if response.status >= 500 { stats.serverErrors += 1 }
            if injected { stats.injectedFailures += 1 }
            if truncated { stats.truncated += 1 }
            if route == .graphql, !injected, case .bytes(let body) = response.body,
               body.starts(with: Array("{\"errors\"".utf8)) {
                stats.graphqlErrors += 1
            }
        }
    }

    /// Expected images (url, full SHA-256 hex, size), computed once.
    func expected() -> [(url: String, sha256Hex: String, bytes: Int)] {
        if let cached = lock.withLock({ expectedCache }) { return cached }
        let base = self.base
        var list: [(url: String, sha256Hex: String, bytes: Int)] = []
        for path in dataset.expectedImagePaths() {
            guard let image = dataset.image(at: path) else { continue }
            list.append((base + path, SHA256.hex(image.bytes), image.bytes.count))
        }
        lock.withLock { expectedCache = list }
        return list
    }

    private func expectedJSON() -> JSON {
        let base = self.base
        let images = expected().map { item -> JSON in
            .object([("url", .string(item.url)), ("path", .string(String(item.url.dropFirst(base.count)))),
                     ("sha256", .string(item.sha256Hex)), ("bytes", .int(item.bytes))])
        }
        return .object([("images", .array(images)), ("hits", .int(dataset.totalHits)),
                        ("launches", .int(dataset.launchCount))])
    }

    /// Monotonic seconds (rate-limit windows).
    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
