import FeedCrawlSupport
import FeedCrawlHTTP

/// The Apollo tutorial's GraphQL launches API, paged by cursor: the `launches` feed type.
///
/// Configuration file keys besides the common ones (`FeedSourceEntry.commonKeys`):
/// `patchSize` (`small` or `large`: a synonym of `images: [SIZE]`), `details` (`true`: query
/// each launch's details and fetch its large patch; default false), `pageSize` (launches per
/// page, sent as the query's `pageSize`, 1–100000; default not sent, the server's 20).
public struct LaunchesSourceConfiguration: FeedSource {
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

extension LaunchesSourceConfiguration {
    public static let type = "launches"
    public static var variantNames: [String] { LaunchesQuery.PatchSize.allCases.map(\.rawValue) }
    public static let fileKeys: [FeedFileKey] = [
        .init("patchSize", "small or large: the same as \"images\": [\"small\"] or [\"large\"]"),
        .init("details", "true: query each launch's details (rocket, site) and fetch its large patch too (default false)"),
        .init("pageSize", "launches per page, sent as the query's pageSize, 1-100000 (default not sent: the server's 20)"),
    ]
    public static let commandLineOptions: [FeedOption] = [
        .value("--launches-url", "URL", defaultText: "demo",
               "A GraphQL launches API (the Apollo tutorial's schema)."),
        .value("--launch-images", "LIST", value: .list, defaultText: "small", choices: variantNames,
               "Launch mission patch sizes to download, comma-separated: small, large."),
        .value("--patch-size", "SIZE", defaultText: "small", choices: variantNames,
               "The same as --launch-images SIZE (small or large)."),
        .value("--launches-page-size", "N", defaultText: "the server's (20)",
               "Launches per page, sent as the query's pageSize (1-100000)."),
        .flag("--details",
              "After listing, query LaunchDetails for each launch and add its rocket and site to the "
                  + "manifest, and its large patch (downloaded too) to the images."),
    ]

    public static func check(option name: String, value: String) throws(FeedOptionError) {
        switch name {
        case "--launches-url": try FeedOptionError.checkURL(name, value)
        case "--launch-images": _ = try FeedOptionError.variants(name, value, as: LaunchesQuery.PatchSize.self)
        case "--patch-size":
            guard LaunchesQuery.PatchSize(rawValue: value.lowercased()) != nil else {
                throw FeedOptionError("--patch-size takes small or large, not '\(TerminalText.sanitize(value))'")
            }
        case "--launches-page-size": _ = try FeedOptionError.integer(name, value, in: 1...100_000)
        default: break
        }
    }

    /// The patch sizes the command line asks for: the last of `--launch-images` and
    /// `--patch-size`; default small.
    static func variants(_ commandLine: FeedCommandLine) -> [LaunchesQuery.PatchSize] {
        commandLine.last("--launch-images", "--patch-size")
            .flatMap { try? ImageVariants.parse(commaSeparated: $0, as: LaunchesQuery.PatchSize.self) } ?? [.small]
    }

    public static func make(_ commandLine: FeedCommandLine) throws(FeedOptionError) -> Self? {
        let named = commandLine.last("--launches-url")
        guard let url = named ?? commandLine.demoURLs[type] else { return nil }
        var config = LaunchesSourceConfiguration(url: url, pages: commandLine.pages)
        config.variants = variants(commandLine)
        config.details = commandLine.has("--details")
        config.pageSize = try commandLine.last("--launches-page-size").map { (text) throws(FeedOptionError) in
            try FeedOptionError.integer("--launches-page-size", text, in: 1...100_000)
        }
        if let ttl = commandLine.pageTTL ?? (named == nil ? 0 : nil) { config.pageTTL = ttl }
        config.headers = commandLine.headers
        return config
    }

    public static func shown(option name: String, in commandLine: FeedCommandLine) -> FeedSetting? {
        switch name {
        case "--launch-images": return .strings(variants(commandLine).map(\.rawValue))
        case "--patch-size":
            let sizes = variants(commandLine)
            return sizes.count == 1 ? .string(sizes[0].rawValue) : nil
        case "--launches-page-size": return commandLine.last(name).flatMap(Int.init).map { .int($0) }
        case "--details": return .bool(commandLine.has(name))
        default: return commandLine.last(name).map { .string($0) }
        }
    }

    public static func make(_ entry: FeedSourceEntry) throws(ConfigError) -> Self {
        var images = entry.images
        if let text = try entry.string("patchSize") {
            guard LaunchesQuery.PatchSize(rawValue: text.lowercased()) != nil else {
                throw entry.fail("patchSize", "expected \"small\" or \"large\", not \(ConfigValue.string(text).kindDescription)")
            }
            // One setting, two keys: both given is refused, never one silently ignored.
            guard images == nil else {
                throw entry.fail("patchSize", "sets the same value as \"images\", which this source gives too; keep one of them")
            }
            images = [text]
        }
        var config = LaunchesSourceConfiguration(url: entry.url, pages: try entry.pages)
        config.name = entry.name
        if let images, let variants = try? ImageVariants.parse(images, as: LaunchesQuery.PatchSize.self) {
            config.variants = variants
        }
        if let details = try entry.bool("details") { config.details = details }
        config.pageSize = try entry.integer("pageSize", 1...100_000)
        if let pageTTL = entry.pageTTL { config.pageTTL = pageTTL }
        config.headers = try entry.resolvedHeaders()
        return config
    }

    public var variantList: [String] { effectiveVariants.map(\.rawValue) }
    /// Room launch details take in an item (rocket, site, the large patch's URL and outcome).
    public var manifestAllowance: Int64 { details ? 2_048 : 0 }

    public func settings(_ redactor: SecretRedactor) -> [(key: String, value: FeedSetting)] {
        var settings: [(key: String, value: FeedSetting)] = [("details", .bool(details))]
        if let pageSize { settings.append(("pageSize", .int(pageSize))) }
        return settings
    }

    public func crawl(_ context: FeedCrawlContext) async -> SourceReport {
        await LaunchesCrawl(config: self, context: context).run()
    }
}

extension SourceConfiguration {
    /// A launches source.
    public static func launches(_ config: LaunchesSourceConfiguration) -> SourceConfiguration { .init(config) }
}
