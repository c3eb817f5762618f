/// One feed to crawl.
public enum SourceConfiguration: Sendable {
    case pixabay(PixabaySourceConfiguration)
    case launches(LaunchesSourceConfiguration)
    case array(ArraySourceConfiguration)

    /// The name items of this source carry in the manifest.
    public var name: String {
        switch self {
        case .pixabay(let config): return config.name
        case .launches(let config): return config.name
        case .array(let config): return config.name
        }
    }

    /// Reuse of fetched pages in seconds (`OUT/pages/<name>/`); 0 = none.
    public var pageTTL: Double {
        switch self {
        case .pixabay(let config): return config.pageTTL
        case .launches(let config): return config.pageTTL
        case .array(let config): return config.pageTTL
        }
    }

    /// Whether `name` can name a source: 1 to 64 of `A-Z a-z 0-9 . _ -`, not `.` or `..`
    /// (it names a folder under OUT/pages and in recordings).
    public static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
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
    /// Fetched pages younger than this are reused (Pixabay asks for 24 h caching); default 24 h.
    public var pageTTL: Double = 24 * 3600

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
    /// Mission patch size listed (and downloaded as the item's image); default `.small`.
    public var patchSize: LaunchesQuery.PatchSize = .small
    /// After listing, query `LaunchDetails` for each launch and download its large patch;
    /// default false.
    public var details: Bool = false
    /// `LaunchDetails` queries in flight at once; default 4.
    public var detailsConcurrency: Int = 4
    /// Fetched pages younger than this are reused; default 0 (the server asks for no caching).
    public var pageTTL: Double = 0

    public init(url: String, pages: Int = 5) {
        self.url = url
        self.pages = pages
    }
}

/// A page-numbered feed answering bare JSON arrays (PunkAPI-style `?page=N&per_page=M`).
public struct ArraySourceConfiguration: Sendable {
    /// The endpoint, e.g. `https://api.punkapi.com/v2/beers`.
    public var url: String
    /// Field holding each element's id (dotted paths reach into objects); default `id`.
    public var idField: String = "id"
    /// Field holding each element's image URL; default `image_url`.
    public var imageField: String = "image_url"
    /// Field holding the title; default nil (tries `name`, then `title`).
    public var titleField: String? = nil
    /// Pages to fetch at most; default 5.
    public var pages: Int = 5
    /// Elements per page (`per_page`); default 25 (PunkAPI's default; it accepts 1...80).
    public var perPage: Int = 25
    /// The source's name in the manifest; default `array`.
    public var name: String = "array"
    /// Fetched pages younger than this are reused; default 0.
    public var pageTTL: Double = 0

    public init(url: String, idField: String = "id", imageField: String = "image_url", pages: Int = 5) {
        self.url = url
        self.idField = idField
        self.imageField = imageField
        self.pages = pages
    }
}
