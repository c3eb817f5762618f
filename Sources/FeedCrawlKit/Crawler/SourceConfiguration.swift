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

    /// The feed's endpoint.
    public var url: String {
        switch self {
        case .pixabay(let config): return config.url
        case .launches(let config): return config.url
        case .array(let config): return config.url
        }
    }

    /// The API key the source sends (a secret), nil when it sends none.
    public var key: String? {
        if case .pixabay(let config) = self { return config.key }
        return nil
    }

    /// Headers sent with every feed request of the source (`--header`, `headers`); their values
    /// are secrets.
    public var headers: [HTTPHeader] {
        switch self {
        case .pixabay(let config): return config.headers
        case .launches(let config): return config.headers
        case .array(let config): return config.headers
        }
    }

    /// What the run masks for this source: its key and its headers' values.
    public var secrets: [String] {
        (key.map { [$0] } ?? []) + FeedHeaders.secrets(headers)
    }

    /// The source's kind as the configuration file names it: `pixabay`, `launches` or `array`.
    public var type: String {
        switch self {
        case .pixabay: return "pixabay"
        case .launches: return "launches"
        case .array: return "array"
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
    /// Image variants to fetch, in order (the first is the contact sheet's tile); default
    /// `[.preview]`.
    public var variants: [PixabayVariant] = [.preview]
    /// The source's name in the manifest; default `pixabay`.
    public var name: String = "pixabay"
    /// Fetched pages younger than this are reused (Pixabay asks for 24 h caching); default 24 h.
    public var pageTTL: Double = 24 * 3600
    /// Headers sent with every feed request (values are secrets); default none.
    public var headers: [HTTPHeader] = []

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
    /// Mission patch sizes to fetch, in order; default `[.small]`.
    public var variants: [LaunchesQuery.PatchSize] = [.small]
    /// Query `LaunchDetails` for each launch listed (rocket, site) and fetch its `large` patch
    /// too; default false.
    public var details: Bool = false

    /// `variants`, with `large` added when `details` asks for it.
    public var effectiveVariants: [LaunchesQuery.PatchSize] {
        details && !variants.contains(.large) ? variants + [.large] : variants
    }
    /// `LaunchDetails` queries in flight at once; default 4.
    public var detailsConcurrency: Int = 4
    /// Fetched pages younger than this are reused; default 0 (the server asks for no caching).
    public var pageTTL: Double = 0
    /// Launches per page, sent as `pageSize`; default nil: not sent (the server's default, 20).
    public var pageSize: Int? = nil
    /// Headers sent with every feed request (values are secrets); default none.
    public var headers: [HTTPHeader] = []

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
    /// Headers sent with every feed request (values are secrets); default none.
    public var headers: [HTTPHeader] = []

    public init(url: String, idField: String = "id", imageField: String = "image_url", pages: Int = 5) {
        self.url = url
        self.idField = idField
        self.imageField = imageField
        self.pages = pages
    }
}

/// Parses lists of image variant names (`--pixabay-images preview,webformat`, a source's
/// `"images"` in the configuration file).
public enum ImageVariants {
    /// Why a list of variants is not usable; the text names the valid ones.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The names in `list` as `Variant`s, in order, repeats dropped. Throws `Invalid` for an
    /// empty list or an unknown name (the message names the valid ones).
    public static func parse<Variant: RawRepresentable & CaseIterable>(
        _ list: [String], as: Variant.Type
    ) throws(Invalid) -> [Variant] where Variant.RawValue == String, Variant: Equatable {
        let valid = Variant.allCases.map(\.rawValue).joined(separator: ", ")
        var variants: [Variant] = []
        for name in list.map({ FeedText.trimmedASCIIWhitespace($0).lowercased() }) where !name.isEmpty {
            guard let variant = Variant(rawValue: name) else {
                throw Invalid(description: "unknown image variant '\(TerminalText.sanitize(String(name.prefix(40))))' (valid: \(valid))")
            }
            if !variants.contains(variant) { variants.append(variant) }
        }
        guard !variants.isEmpty else { throw Invalid(description: "no image variant named (valid: \(valid))") }
        return variants
    }

    /// `parse` of a comma-separated list.
    public static func parse<Variant: RawRepresentable & CaseIterable>(
        commaSeparated text: String, as type: Variant.Type
    ) throws(Invalid) -> [Variant] where Variant.RawValue == String, Variant: Equatable {
        try parse(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init), as: type)
    }

    /// The one variant an array source has.
    public enum ArrayVariant: String, CaseIterable, Sendable {
        case image
    }
}
