import FoundationEssentials

/// How one source gets its feed responses: from a recording (`--replay`), from the page cache
/// (fresh enough and not `--refresh`), or from the network through the source's rate-limit gate
/// and the retry policy. Every response used is also written to the recording (`--record`).
/// Nothing written holds a secret.
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
    }

    /// How the client is set up; all optional parts default to off.
    struct Setup: Sendable {
        /// Reuse cached pages younger than this (seconds); 0 = never, and nothing is cached.
        var pageTTL: Double = 0
        /// Ignore cached pages (still refresh them).
        var refresh = false
        /// `OUT/pages` store.
        var pageCache: FeedExchangeStore? = nil
        /// `--record DIR` store.
        var recording: FeedExchangeStore? = nil
        /// `--replay DIR` store: no network at all.
        var replay: FeedExchangeStore? = nil
    }

    let source: String
    let fetcher: FeedFetcher
    let gate: RateLimitGate
    let redactor: SecretRedactor
    let setup: Setup
    private let events: @Sendable (CrawlEvent) -> Void

    init(
        source: String, fetcher: FeedFetcher, redactor: SecretRedactor, setup: Setup,
        gate: RateLimitGate = RateLimitGate(), events: @escaping @Sendable (CrawlEvent) -> Void = { _ in }
    ) {
        self.source = source
        self.fetcher = fetcher
        self.gate = gate
        self.redactor = redactor
        self.setup = setup
        self.events = events
        if setup.replay == nil, let cache = setup.pageCache {
            cache.prune(source: source, olderThan: setup.pageTTL)
        }
    }

    /// Whether fetched pages are kept in the page cache.
    var cachesPages: Bool { setup.pageTTL > 0 && setup.pageCache != nil && setup.replay == nil }

    /// Gets the response to `request`. Throws `CancellationError` or `FeedFetcher.Failure`
    /// (no answer after retries, or no recorded answer in replay mode).
    func fetch(_ request: HTTPRequest) async throws -> Reply {
        let identity = FeedRequestIdentity(request, redactor: redactor)
        if let replay = setup.replay {
            guard let exchange = replay.load(source: source, request: identity) else {
                throw FeedFetcher.Failure(description: "no recorded response for \(identity.shown) in \(replay.root)")
            }
            if let response = exchange.response { return Reply(response: response, origin: .replay, request: identity) }
            throw FeedFetcher.Failure(description: exchange.error ?? "unreadable recorded response for \(identity.shown)")
        }
        if cachesPages, !setup.refresh, let cache = setup.pageCache,
           let exchange = cache.load(source: source, request: identity),
           Date().timeIntervalSince1970 - exchange.fetchedAt < setup.pageTTL,
           exchange.fetchedAt <= Date().timeIntervalSince1970 + 60,
           let response = exchange.response
        {
            record(exchange)
            return Reply(response: response, origin: .pageCache, request: identity)
        }
        let response: HTTPResponse
        do {
            response = try await fetcher.fetch(request, gate: gate)
        } catch let failure as FeedFetcher.Failure {
            record(FeedExchange(source: source, request: identity, error: failure.description))
            throw failure
        }
        record(FeedExchange(source: source, request: identity, response: response, redactor: redactor))
        return Reply(response: response, origin: .network, request: identity)
    }

    /// Reports a parsed page (for progress displays).
    func pageParsed(_ page: Int, items: Int) {
        events(.pageFetched(source: source, page: page, items: items))
    }

    /// Keeps a network reply that made a good page in the page cache (when pages are cached).
    func keep(_ reply: Reply) {
        guard reply.origin == .network, cachesPages, let cache = setup.pageCache else { return }
        do {
            try cache.save(FeedExchange(
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
