import CCurl
import FeedCrawlSupport

/// An HTTP client on libcurl: one multi handle driven by one dedicated thread, bridged to
/// async/await.
///
/// The engine runs every request it is given at once; admission control (how many transfers are
/// in flight) is the caller's job. Every transfer follows up to 5 redirects, allows only `http`
/// and `https` (also for redirects), and enforces the body cap while streaming.
///
/// Cancelling the calling task removes the transfer within milliseconds, discards a partly
/// written sink (`BodySink`) and throws `CancellationError`.
public final class HTTPEngine: @unchecked Sendable {
    /// Engine-wide settings.
    public struct Configuration: Sendable {
        /// The most transfers the caller will run at once; sizes the connection cache
        /// (`CURLMOPT_MAXCONNECTS` = 2 × this, at least 8). Default 16.
        public var maxConcurrentTransfers: Int = 16
        /// The `User-Agent` header. Default `BuildInfo.userAgent` (`feedcrawl/0.2.0`).
        public var userAgent: String = BuildInfo.userAgent
        /// A CA bundle file for TLS verification (`--cacert`); `nil` (default) uses the system store.
        public var caInfo: String? = nil
        /// The proxy for every request (`--proxy`, curl's `-x` syntax); `nil` (default) takes
        /// `http_proxy`, `https_proxy` and `all_proxy` from the environment, as curl does.
        public var proxy: String? = nil
        /// Hosts reached without a proxy (`--noproxy`, curl's syntax: comma-separated names,
        /// domains, addresses, `*`); `nil` (default) takes `no_proxy` or `NO_PROXY` from the
        /// environment. Loopback (`localhost`, `127.0.0.1`, `::1`) is always reached directly:
        /// the built-in demo feed and anything on this machine never go through a proxy.
        public var noProxy: String? = nil

        /// Creates a configuration; every argument has the default documented on its property.
        public init(
            maxConcurrentTransfers: Int = 16, userAgent: String = BuildInfo.userAgent, caInfo: String? = nil,
            proxy: String? = nil, noProxy: String? = nil
        ) {
            self.maxConcurrentTransfers = maxConcurrentTransfers
            self.userAgent = userAgent
            self.caInfo = caInfo
            self.proxy = proxy
            self.noProxy = noProxy
        }
    }

    let loop: CurlLoop

    /// Initialises libcurl (once per process) and starts the engine's thread.
    /// Throws `HTTPError.curl` when libcurl or the thread cannot be set up.
    public init(configuration: Configuration = .init()) throws {
        if let problem = CurlGlobal.initError {
            throw HTTPError.curl(code: Int(CURLE_FAILED_INIT.rawValue), message: problem)
        }
        loop = try CurlLoop(configuration: configuration)
        try loop.start()
    }

    deinit {
        loop.shutdown()
    }

    /// Runs one request and returns the final response (after redirects).
    ///
    /// Non-2xx statuses are returned as responses, not thrown. Throws `HTTPError` for transfer
    /// failures, `CancellationError` when the task is (or already was) cancelled or the engine
    /// shuts down mid-transfer, and `HTTPError.engineShutDown` after `shutdown()`.
    ///
    /// Sink destination: the sink is made when a 2xx response starts, receives the body, and is
    /// discarded on any failure or cancellation. It is not returned: a caller that must finish
    /// the sink (commit it) keeps it from its factory, or uses `start(_:completion:)`, whose
    /// result holds it. A sink's error is thrown as it was thrown.
    public func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        // A thin layer over the one execution path, `start(_:completion:)`.
        try Task.checkCancellation()
        let handle = Locked<TransferHandle?>(nil)
        // The result passes through a lock, not the continuation: a continuation resumed before
        // its task suspends hands over without a synchronisation ThreadSanitizer sees, and the
        // caller then touches what the engine's thread wrote (a sink's file, its counts).
        let result = Locked<Result<CompletedTransfer, any Error>?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                do {
                    let started = try start(request) { completed in
                        result.withLock { $0 = completed }
                        continuation.resume()
                    }
                    let cancelled = handle.withLock { current -> Bool in
                        current = started
                        return Task.isCancelled
                    }
                    if cancelled { cancel(started) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            if let started = handle.withLock({ $0 }) { cancel(started) }
        }
        return try result.withLock { $0! }.get().response
    }

    /// Cancels all transfers in flight (they throw `CancellationError`) and stops the engine's
    /// thread, waiting for it. Idempotent; later `perform` calls throw `HTTPError.engineShutDown`.
    public func shutdown() {
        loop.shutdown()
    }

    /// How many connections the engine has opened so far (sum of `CURLINFO_NUM_CONNECTS`).
    public var connectionsOpened: Int {
        loop.lock.withLock { loop.openedConnections }
    }

    /// Runs `body` with a fresh engine and shuts the engine down afterwards, also when `body` throws.
    public static func withEngine<T>(
        configuration: Configuration = .init(),
        _ body: (HTTPEngine) async throws -> T
    ) async throws -> T {
        let engine = try HTTPEngine(configuration: configuration)
        defer { engine.shutdown() }
        return try await body(engine)
    }
}
