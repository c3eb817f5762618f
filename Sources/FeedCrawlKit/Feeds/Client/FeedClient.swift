import FoundationEssentials
import FeedCrawlSupport
import FeedCrawlHTTP

/// How one source gets its feed responses: from a recording (`--replay`), from the page cache
/// (fresh enough and not `--refresh`), or from the network, each attempt through the API's
/// rate-limit budget (`RateLimitGate`, shared by every source that sends the same key to the
/// same host) and retried by the `RetryPolicy` images use too, with the source's headers
/// (`--header`). Every response used is also written to the recording (`--record`); the
/// request is written without its headers. Nothing written holds a secret.
final class FeedClient: Sendable {
    /// Where a response came from.
    enum Origin: Sendable, Equatable {
        case network, pageCache, replay
    }

    /// A response and what it answered.
    struct Reply: Sendable {
        var response: HTTPResponse
        var origin: Origin
        var request: FeedRequestIdentity
        /// When the body came from the network (seconds since 1970): now, or a kept page's time.
        var fetchedAt: Double = Date().timeIntervalSince1970

        /// `problem` with the URL that answered (its key removed, secrets masked), so a feed
        /// error names where it came from: `<problem> (from <URL>)`.
        func located(_ problem: String) -> String {
            "\(problem) (from \(request.url))"
        }
    }

    /// A feed request that could not be answered; its text holds no secret.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// How the client is set up; all optional parts default to off.
    struct Setup: Sendable {
        /// Reuse cached pages younger than this (seconds); 0 = never, and nothing is cached.
        var pageTTL: Double = 0
        /// Ignore cached pages (still refresh them).
        var refresh = false
        /// `OUT/pages` store.
        var pageCache: KeptPages? = nil
        /// `--record DIR` store.
        var recording: FeedExchangeStore? = nil
        /// `--replay DIR` store: no network at all.
        var replay: FeedExchangeStore? = nil
    }

    /// Request settings for feed pages.
    struct Limits: Sendable {
        /// Retries and the limits of each attempt (the run's one `RequestPolicy`).
        var policy = RequestPolicy()
        /// The largest page, fetched, kept or replayed (`--max-page-bytes`); default 8 MiB.
        var maxBytes: Int64 = CrawlConfiguration().maxPageBytes
        /// Opened when a feed answers from a loopback or private address (images from such
        /// addresses may then be fetched).
        var privateAddresses = PrivateAddressScope()
    }

    let source: String
    let engine: HTTPEngine
    let gate: RateLimitGate
    let redactor: SecretRedactor
    let setup: Setup
    let limits: Limits
    /// Sent with every request, replacing same-named ones (`--header`, a source's `headers`).
    let headers: [HTTPHeader]
    private let events: @Sendable (CrawlEvent) -> Void

    init(
        source: String, engine: HTTPEngine, limits: Limits, redactor: SecretRedactor, setup: Setup,
        gate: RateLimitGate = RateLimitGate(), headers: [HTTPHeader] = [],
        events: @escaping @Sendable (CrawlEvent) -> Void = { _ in }
    ) {
        self.headers = headers
        self.source = source
        self.engine = engine
        self.limits = limits
        self.gate = gate
        self.redactor = redactor
        self.setup = setup
        self.events = events
    }

    /// The identity `request` is kept under (its page-cache name).
    func identity(_ request: HTTPRequest) -> FeedRequestIdentity {
        FeedRequestIdentity(request, redactor: redactor)
    }

    /// Removes the source's kept pages older than `--page-ttl` (before the crawl).
    func pruneKeptPages() async {
        guard setup.replay == nil, let cache = setup.pageCache else { return }
        await cache.prune(source: source, olderThan: setup.pageTTL)
    }

    /// Whether fetched pages are kept in the page cache.
    var cachesPages: Bool { setup.pageTTL > 0 && setup.pageCache != nil && setup.replay == nil }

    /// Why a page larger than `limit` bytes is refused, naming the option that raises it:
    /// `body larger than 8 MiB (raise it with --max-page-bytes)`.
    static func tooLarge(limit: Int64) -> String {
        "body larger than \(ByteSize.format(limit)) (raise it with --max-page-bytes)"
    }

    /// Gets the response to `request`. Throws `CancellationError` or `Failure` (no answer after
    /// retries, no recorded answer in replay mode, or a page larger than `limits.maxBytes`).
    ///
    /// A cancelled task (a signal, the deadline) gets no page: the request in flight is
    /// aborted, and a cancelled task neither starts one nor reads the page cache or the
    /// recording, nor uses an answer that came in as it was cancelled; it gets
    /// `CancellationError`, so no page is listed (or logged as fetched) once the run stops.
    func fetch(_ request: HTTPRequest) async throws -> Reply {
        try Task.checkCancellation()
        let identity = FeedRequestIdentity(request, redactor: redactor)
        if let replay = setup.replay {
            guard let exchange = replay.load(source: source, request: identity) else {
                throw Failure(description: "no recorded response for \(identity.shown) in \(replay.root)")
            }
            guard let response = exchange.response else {
                throw Failure(description: exchange.error ?? "unreadable recorded response for \(identity.shown)")
            }
            guard response.body.count <= limits.maxBytes else {
                throw Failure(description: "\(identity.shown): recorded \(Self.tooLarge(limit: limits.maxBytes))")
            }
            return Reply(response: response, origin: .replay, request: identity, fetchedAt: exchange.fetchedAt)
        }
        if cachesPages, !setup.refresh, let cache = setup.pageCache,
           let exchange = await cache.load(source: source, request: identity),
           Date().timeIntervalSince1970 - exchange.fetchedAt < setup.pageTTL,
           exchange.fetchedAt <= Date().timeIntervalSince1970 + 60,
           let response = exchange.response, response.body.count <= limits.maxBytes
        {
            record(exchange)
            return Reply(response: response, origin: .pageCache, request: identity, fetchedAt: exchange.fetchedAt)
        }
        let response: HTTPResponse
        do {
            response = try await perform(request)
        } catch let failure as Failure {
            record(FeedExchange(source: source, request: identity, error: failure.description))
            throw failure
        }
        record(FeedExchange(source: source, request: identity, response: response, redactor: redactor))
        // An answer that completed as the task was cancelled is recorded but not used.
        try Task.checkCancellation()
        return Reply(response: response, origin: .network, request: identity)
    }

    /// Performs `request` on the network (memory destination, gzip accepted), retrying network
    /// failures, 5xx, 408 and 429. Every attempt first passes the rate-limit gate, which also
    /// learns from every answer. Status codes that are not transient come back as responses,
    /// for the source to classify.
    private func perform(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.destination = .memory
        request.headers = FeedHeaders.merged(request.headers, headers)
        request.acceptEncoding = true
        request.maxBytes = limits.maxBytes
        let shownURL = redactor.redactURL(request.url)
        var attempt = 1
        while true {
            let reason: String
            var retryAfter: Int?
            try await gate.acquire(source: source)
            limits.policy.apply(to: &request)
            do {
                let response: HTTPResponse
                do {
                    response = try await engine.perform(request)
                } catch {
                    gate.abandoned()
                    throw error
                }
                gate.received(response)
                if let ip = response.primaryIP { limits.privateAddresses.noteFeed(host: ip) }
                guard RequestPolicy.isTransient(status: response.status) else { return response }
                reason = "HTTP \(response.status)"
                retryAfter = response.retryAfterSeconds
                if !limits.policy.retry.allowsRetry(after: attempt) { return response }
            } catch is CancellationError {
                throw CancellationError()
            } catch HTTPError.bodyTooLarge(let limit) {
                throw Failure(description: "\(shownURL): \(Self.tooLarge(limit: limit))")
            } catch let error as HTTPError {
                let text = redactor.redact(error.description)
                guard error.isTransient, limits.policy.retry.allowsRetry(after: attempt) else {
                    throw Failure(description: "\(shownURL): \(text)")
                }
                reason = text
            }
            // A 429 is paced by the gate (it waits as `Retry-After` says); others back off here.
            let delay: Double
            switch limits.policy.retry.decide(beforeRetry: attempt, retryAfter: retryAfter, jitter: .random(in: 0..<1)) {
            case .wait(let seconds):
                delay = seconds
            case .giveUp(let why):
                throw Failure(description: "\(shownURL): \(reason): \(why)")
            }
            events(.retrying(url: shownURL, attempt: attempt, delay: delay, reason: reason, source: source))
            try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
            attempt += 1
        }
    }

    /// Reports a parsed page (for progress displays).
    func pageParsed(_ page: Int, items: Int) {
        events(.pageFetched(source: source, page: page, items: items))
    }

    /// Keeps a network reply that made a good page in the page cache (when pages are cached).
    func keep(_ reply: Reply) async {
        guard reply.origin == .network, cachesPages, let cache = setup.pageCache else { return }
        do {
            try await cache.save(FeedExchange(
                source: source, request: reply.request, response: reply.response, redactor: redactor))
        } catch {
            events(.warning(source: source, message: redactor.redact("cannot keep a page in the page cache: \(error)")))
        }
    }

    private func record(_ exchange: FeedExchange) {
        guard let recording = setup.recording else { return }
        do {
            try recording.save(exchange)
        } catch {
            events(.warning(source: source, message: redactor.redact("cannot record a response: \(error)")))
        }
    }
}
