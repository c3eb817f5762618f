/// Request builder for a Pixabay-style image search (`GET <baseURL>?key=…&q=…&page=N`).
///
/// Parameters are added in this order: `key`, `q` (when set), `image_type` (when set),
/// `per_page`, `page`. Names and values are
/// percent-encoded (RFC 3986 unreserved characters kept, space → `%20`). A query already
/// present in `baseURL` is kept; a `#fragment` is dropped. The key is in every URL: log
/// URLs only through `SecretRedactor.redactURL(_:)`.
public struct PixabayQuery: Sendable, Equatable {
    /// Accepted `per_page` values: 3...200.
    public static let perPageRange = 3...200
    /// Default `per_page`: 100.
    public static let defaultPerPage = 100
    /// Longest `q` the API accepts: 100 characters.
    public static let maxQueryCharacters = 100

    /// Endpoint, e.g. `https://pixabay.com/api/`.
    public var baseURL: String
    /// API key (sent as `key`).
    public var key: String
    /// Search term; `nil` or `""` omits `q` (all images).
    public var q: String?
    /// `image_type`: "all", "photo", "illustration" or "vector"; default "all"; `nil` omits it.
    public var imageType: String?
    /// `per_page`, clamped to 3...200 by the initialiser; default 100.
    public private(set) var perPage: Int

    /// Creates a query; `perPage` is clamped into `perPageRange`.
    public init(
        baseURL: String,
        key: String,
        q: String? = nil,
        imageType: String? = "all",
        perPage: Int = PixabayQuery.defaultPerPage
    ) {
        self.baseURL = baseURL
        self.key = key
        self.q = q
        self.imageType = imageType
        self.perPage = min(max(perPage, Self.perPageRange.lowerBound), Self.perPageRange.upperBound)
    }

    /// The URL for `page` (1-based; values below 1 are sent as 1).
    public func url(page: Int) -> String {
        var items: [(String, String)] = [("key", key)]
        if let q, !q.isEmpty { items.append(("q", q)) }
        if let imageType, !imageType.isEmpty { items.append(("image_type", imageType)) }
        items.append(("per_page", String(perPage)))
        items.append(("page", String(max(page, 1))))
        return FeedPercentEncoding.appendingQuery(to: baseURL, items)
    }
}
