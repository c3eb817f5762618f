/// Configuration of a `DemoFeedServer`. Everything served is a pure function of these options
/// (faults also of the request and how often it was seen), except the rate-limit window clock.
public struct DemoFeedOptions: Sendable {
    /// Seed of the whole data set and of injected faults. Default 1.
    public var seed: UInt64 = 1
    /// `total` matches of every Pixabay query. Default 500.
    public var hits: Int = 500
    /// Cap on `totalHits` (the real API caps at 500): totalHits = min(hits, hitsCap). Default 500.
    public var hitsCap: Int = 500
    /// Number of launches in the GraphQL feed (ids launches...1, newest first). Default 100.
    public var launches: Int = 100
    /// API key `/api/` accepts: nil (default) accepts any non-empty key, otherwise an exact match.
    public var apiKey: String? = nil
    /// Delay in ms added to every `/api/`, `/graphql` and `/img/` response. Default 0.
    public var latencyMs: Int = 0
    /// Fraction (0...1) of feed/image requests answered with `failStatus` instead. Default 0.
    public var failRate: Double = 0
    /// Status of injected failures (503 also sends Retry-After). Default 500.
    public var failStatus: Int = 500
    /// Fraction (0...1) of image bodies cut off halfway (full Content-Length announced, then close). Default 0.
    public var truncateRate: Double = 0
    /// `/api/` requests allowed per window per key; nil (default) = not enforced (the
    /// X-RateLimit headers then report the real API's default limit of 100).
    public var rateLimit: Int? = nil
    /// Rate-limit window in seconds. Default 60.
    public var rateWindowSeconds: Double = 60
    /// Retry-After seconds on 429 and injected 503 answers. Default 1.
    public var retryAfterSeconds: Int = 1
    /// Mean image size in bytes (each varies ±30 %, padded with a COM segment / tEXt chunk). Default 2000.
    public var imageBytes: Int = 2000
    /// Consulted first for every request: a non-nil answer is sent as is. Default nil.
    public var override: (@Sendable (ServerRequest) -> ServerResponse?)? = nil

    /// Default options (see each property).
    public init() {}

    /// totalHits, i.e. min(hits, hitsCap), never negative.
    var totalHits: Int { max(0, min(hits, hitsCap)) }
}
