/// Counters of a `DemoFeedServer` (since start or the last `resetStats()`); `/expected` and
/// `/stats` are not counted.
public struct DemoFeedStats: Sendable, Equatable {
    /// Responses on `GET /api/` (any status).
    public var api = 0
    /// Responses on `POST /graphql` (any status).
    public var graphql = 0
    /// Responses on `/img/...` (any status, 304s included).
    public var images = 0
    /// Responses on any other path.
    public var other = 0
    /// 304 Not Modified answers.
    public var notModified = 0
    /// 429 Too Many Requests answers.
    public var rateLimited = 0
    /// 5xx answers (injected failures included).
    public var serverErrors = 0
    /// Injected failures (`failRate`).
    public var injectedFailures = 0
    /// Image bodies cut off (`truncateRate`).
    public var truncated = 0
    /// GraphQL answers carrying an `errors` list.
    public var graphqlErrors = 0

    /// All zero.
    public init() {}

    func json() -> JSON {
        .object([
            ("api", .int(api)), ("graphql", .int(graphql)), ("images", .int(images)), ("other", .int(other)),
            ("notModified", .int(notModified)), ("rateLimited", .int(rateLimited)),
            ("serverErrors", .int(serverErrors)), ("injectedFailures", .int(injectedFailures)),
            ("truncated", .int(truncated)), ("graphqlErrors", .int(graphqlErrors)),
        ])
    }
}
