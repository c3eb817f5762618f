import FeedCrawlHTTP

/// A Pixabay-style page-numbered search API: the `pixabay` feed type.
///
/// Configuration file keys besides the common ones (`FeedSourceEntry.commonKeys`):
/// `keyEnv` (the NAME of the variable holding the key; default `PIXABAY_KEY`), `query`,
/// `imageType` (`all`, `photo`, `illustration`, `vector`), `perPage` (3–200; default the run's
/// `--per-page`), `pageConcurrency` (1–16; default 4).
public struct PixabaySourceConfiguration: FeedSource {
    /// The API endpoint, e.g. `https://pixabay.com/api/`.
    public var url: String
    /// The API key (a secret: never logged or written).
    public var key: String
    /// The NAME of the environment variable the key was read from; default `PIXABAY_KEY`.
    public var keyEnv: String = "PIXABAY_KEY"
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

extension PixabaySourceConfiguration {
    public static let type = "pixabay"
    public static var variantNames: [String] { PixabayVariant.allCases.map(\.rawValue) }
    public static let fileKeys: [FeedFileKey] = [
        .init("keyEnv", "the NAME of the environment variable holding the key (default PIXABAY_KEY)"),
        .init("query", "search terms (default none: every image)"),
        .init("imageType", "all (default), photo, illustration or vector"),
        .init("perPage", "hits per page, 3-200 (default the run's --per-page, which overrides it)"),
        .init("pageConcurrency", "pages fetched at once, 1-16 (default 4)"),
    ]
    public static let commandLineOptions: [FeedOption] = [
        .value("--pixabay-url", "URL", defaultText: "demo",
               "A Pixabay-style search API, e.g. https://pixabay.com/api/. The key is read from the "
                   + "PIXABAY_KEY environment variable."),
        .value("--pixabay-query", "TEXT", defaultText: "none",
               "Pixabay search term (q, at most 100 characters); none: all images."),
        .value("--pixabay-images", "LIST", value: .list, defaultText: "preview", choices: variantNames,
               "Pixabay variants to download, comma-separated: preview (150 px), webformat (640 px), "
                   + "large (1280 px)."),
    ]
    /// The environment variable a Pixabay source reads its key from by default.
    public static let defaultKeyEnv = "PIXABAY_KEY"

    public static func check(option name: String, value: String) throws(FeedOptionError) {
        switch name {
        case "--pixabay-url": try FeedOptionError.checkURL(name, value)
        case "--pixabay-query":
            // The longest `q` the API accepts.
            guard value.count <= 100 else { throw FeedOptionError("--pixabay-query takes at most 100 characters") }
        case "--pixabay-images": _ = try FeedOptionError.variants(name, value, as: PixabayVariant.self)
        default: break
        }
    }

    public static func make(_ commandLine: FeedCommandLine) throws(FeedOptionError) -> Self? {
        let named = commandLine.last("--pixabay-url")
        guard let url = named ?? commandLine.demoURLs[type] else { return nil }
        var key = "demo"
        if named != nil {
            key = commandLine.environment[defaultKeyEnv] ?? ""
            // Replayed, no request goes out: no key is needed.
            guard commandLine.replay || !key.isEmpty else {
                throw FeedOptionError("--pixabay-url needs an API key in the PIXABAY_KEY environment variable")
            }
        }
        var config = PixabaySourceConfiguration(url: url, key: key, pages: commandLine.pages, perPage: commandLine.perPage)
        config.query = commandLine.last("--pixabay-query")
        if let list = commandLine.last("--pixabay-images") {
            config.variants = try FeedOptionError.variants("--pixabay-images", list, as: PixabayVariant.self)
        }
        // The demo's pages name a new port every run: keeping them would only fill the disk.
        if let ttl = commandLine.pageTTL ?? (named == nil ? 0 : nil) { config.pageTTL = ttl }
        config.headers = commandLine.headers
        return config
    }

    public static func shown(option name: String, in commandLine: FeedCommandLine) -> FeedSetting? {
        switch name {
        case "--pixabay-query": return commandLine.last(name).map { .string($0) }
        case "--pixabay-images":
            let variants = commandLine.last(name).flatMap { try? ImageVariants.parse(commaSeparated: $0, as: PixabayVariant.self) }
            return .strings((variants ?? [.preview]).map(\.rawValue))
        default: return commandLine.last(name).map { .string($0) }
        }
    }

    public static func secretVariables(_ entry: FeedSourceEntry) -> [String] {
        [((try? entry.variableName("keyEnv")) ?? nil) ?? defaultKeyEnv]
    }

    public static func make(_ entry: FeedSourceEntry) throws(ConfigError) -> Self {
        let keyEnv = try entry.variableName("keyEnv") ?? defaultKeyEnv
        let imageType = try entry.string("imageType")
        if let imageType, !["all", "photo", "illustration", "vector"].contains(imageType) {
            throw entry.fail("imageType", "expected \"all\", \"photo\", \"illustration\" or \"vector\", not \(ConfigValue.string(imageType).kindDescription)")
        }
        let perPage = try entry.integer("perPage", 3...200)
        var key = ""
        if let environment = entry.run.environment {
            guard let value = environment[keyEnv], !value.isEmpty else {
                throw entry.fail("keyEnv", "the environment variable \(keyEnv) holds no API key; set it (export \(keyEnv)=...)")
            }
            key = value
        }
        var config = PixabaySourceConfiguration(
            url: entry.url, key: key, pages: try entry.pages,
            perPage: entry.run.overridePerPage ? entry.run.perPage : (perPage ?? entry.run.perPage))
        config.name = entry.name
        config.keyEnv = keyEnv
        config.query = try entry.string("query")
        if let imageType { config.imageType = imageType }
        if let pageConcurrency = try entry.integer("pageConcurrency", 1...16) { config.pageConcurrency = pageConcurrency }
        if let pageTTL = entry.pageTTL { config.pageTTL = pageTTL }
        if let images = entry.images, let variants = try? ImageVariants.parse(images, as: PixabayVariant.self) {
            config.variants = variants
        }
        config.headers = try entry.resolvedHeaders()
        return config
    }

    /// The search URL of `page` (1-based; values below 1 are sent as 1): `url` with `key`, `q`
    /// (when set), `image_type`, `per_page` (`perPage` clamped to 3...200) and `page`, in that
    /// order, percent-encoded (RFC 3986 unreserved characters kept, space → `%20`). A query
    /// already in `url` is kept; a `#fragment` is dropped. The key is in every URL: log URLs only
    /// through `SecretRedactor.redactURL(_:)`.
    func pageURL(_ page: Int) -> String {
        var items = [("key", key)]
        if let query, !query.isEmpty { items.append(("q", query)) }
        if !imageType.isEmpty { items.append(("image_type", imageType)) }
        items += [("per_page", String(sentPerPage)), ("page", String(max(page, 1)))]
        return FeedPercentEncoding.appendingQuery(to: url, items)
    }

    /// `per_page` as sent: `perPage` clamped to 3...200.
    var sentPerPage: Int { min(max(perPage, 3), 200) }

    public var apiKey: String? { key }
    public var variantList: [String] { variants.map(\.rawValue) }

    public func settings(_ redactor: SecretRedactor) -> [(key: String, value: FeedSetting)] {
        var settings: [(key: String, value: FeedSetting)] = [("keyEnv", .string(keyEnv)), ("perPage", .int(perPage))]
        if let query { settings.append(("query", .string(redactor.redact(query)))) }
        settings += [("imageType", .string(imageType)), ("pageConcurrency", .int(pageConcurrency))]
        return settings
    }

    public func crawl(_ context: FeedCrawlContext) async -> SourceReport {
        await PixabayCrawl(config: self, context: context).run()
    }
}

extension SourceConfiguration {
    /// A Pixabay source.
    public static func pixabay(_ config: PixabaySourceConfiguration) -> SourceConfiguration { .init(config) }
}
