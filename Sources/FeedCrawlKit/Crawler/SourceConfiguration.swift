/// One feed to crawl.
public enum SourceConfiguration: Sendable {
    case pixabay(PixabaySourceConfiguration)
    case launches(LaunchesSourceConfiguration)

    /// The name items of this source carry in the manifest.
    public var name: String {
        switch self {
        case .pixabay(let config): return config.name
        case .launches(let config): return config.name
        }
    }
}

/// A Pixabay-style page-numbered search API.
public struct PixabaySourceConfiguration: Sendable {
    /// The API endpoint, e.g. `https://pixabay.com/api/`.
    public var url: String
    /// The API key (a secret: never logged or written).
    public var key: String
    /// Search term; default none (all images).
    public var query: String? = nil
    /// `image_type`; default `all`.
    public var imageType: String = "all"
    /// Pages to fetch at most; default 5.
    public var pages: Int = 5
    /// Hits per page, 3...200; default 100.
    public var perPage: Int = 100
    /// Pages fetched at once after page 1; default 4.
    public var pageConcurrency: Int = 4
    /// The source's name in the manifest; default `pixabay`.
    public var name: String = "pixabay"

    public init(url: String, key: String, pages: Int = 5, perPage: Int = 100) {
        self.url = url
        self.key = key
        self.pages = pages
        self.perPage = perPage
    }
}

/// The Apollo tutorial's GraphQL launches API, paged by cursor.
public struct LaunchesSourceConfiguration: Sendable {
    /// The GraphQL endpoint.
    public var url: String
    /// Pages to fetch at most; default 5.
    public var pages: Int = 5
    /// The source's name in the manifest; default `launches`.
    public var name: String = "launches"

    public init(url: String, pages: Int = 5) {
        self.url = url
        self.pages = pages
    }
}
