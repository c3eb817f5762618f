import FeedCrawlHTTP

/// A feed type: what the crawler, the configuration file, `config --print` and the run
/// record know of Pixabay, launches, arrays or any other feed. Each type lives in its own
/// folder under `Feeds/` and is registered once, in `FeedSources.registered`; a new feed type
/// is one folder and one line there.
public protocol FeedSource: Sendable {
    /// The type's name: a configuration file's `"type"`, and the default source name
    /// (`pixabay`, `launches`, `array`).
    static var type: String { get }
    /// The image variants a source of this type can fetch (a source's `"images"`), in order.
    static var variantNames: [String] { get }
    /// The keys a configuration file's source of this type may hold besides
    /// `FeedSourceEntry.commonKeys`, each with what it means (`help config`, README's table);
    /// default none.
    static var fileKeys: [FeedFileKey] { get }
    /// The environment variables a configuration file's source names for secrets of its own
    /// (besides its headers'); default none.
    static func secretVariables(_ entry: FeedSourceEntry) -> [String]
    /// The source a configuration file's entry describes: the common keys are read (`entry`),
    /// the type reads its own (`entry.string("query")`, …). With `entry.environment` nil only
    /// the values are checked, and no secret is looked up.
    static func make(_ entry: FeedSourceEntry) throws(ConfigError) -> Self
    /// The command-line options of this type, in the order `--help` lists them (its URL option
    /// first); `--help`, the man page, the completion scripts and the configuration file's
    /// top-level keys take them from here. Default none.
    static var commandLineOptions: [FeedOption] { get }
    /// Checks one value given to option `name` (one of `commandLineOptions`); the error names
    /// the option. Default: any value.
    static func check(option name: String, value: String) throws(FeedOptionError)
    /// The source the command line names (its URL option, else the demo feed's URL for the
    /// type), nil when none; throws when this type's options cannot be used as given. Default nil.
    static func make(_ commandLine: FeedCommandLine) throws(FeedOptionError) -> Self?
    /// The effective value of option `name` as `config --print` shows it; nil: null. Default nil.
    static func shown(option name: String, in commandLine: FeedCommandLine) -> FeedSetting?

    /// The items' `source` in the manifest; unique in a run.
    var name: String { get }
    /// The endpoint.
    var url: String { get }
    /// Pages to fetch at most.
    var pages: Int { get }
    /// Reuse of kept feed pages in seconds (`OUT/pages/<name>/`); 0 = none.
    var pageTTL: Double { get }
    /// Headers sent with every feed request (values are secrets).
    var headers: [HTTPHeader] { get }
    /// The API key the source sends (a secret; sources sending one key to one host share a
    /// rate-limit budget); default nil.
    var apiKey: String? { get }
    /// The image variants fetched, in order.
    var variantList: [String] { get }
    /// Bytes an item of this source may need in the manifest beyond the usual; default 0.
    var manifestAllowance: Int64 { get }
    /// Settings of this type for the run record's `options` and `config --print`, by key
    /// (secrets masked with `redactor`); default none.
    func settings(_ redactor: SecretRedactor) -> [(key: String, value: FeedSetting)]

    /// Crawls the source: pages through the feed, hands each page's items to the pipeline.
    func crawl(_ context: FeedCrawlContext) async -> SourceReport
}

extension FeedSource {
    public static var fileKeys: [FeedFileKey] { [] }
    public static var commandLineOptions: [FeedOption] { [] }
    public static func check(option name: String, value: String) throws(FeedOptionError) {}
    public static func make(_ commandLine: FeedCommandLine) throws(FeedOptionError) -> Self? { nil }
    public static func shown(option name: String, in commandLine: FeedCommandLine) -> FeedSetting? { nil }
    public static func secretVariables(_ entry: FeedSourceEntry) -> [String] { [] }
    public var apiKey: String? { nil }
    public var manifestAllowance: Int64 { 0 }
    public func settings(_ redactor: SecretRedactor) -> [(key: String, value: FeedSetting)] { [] }
}

/// A key of a configuration file's source entry: its name and what it means, one declaration
/// that the parser (which keys are allowed), `help config` and README's table take.
public struct FeedFileKey: Sendable, Equatable {
    /// The key as written, e.g. `pageTtl`.
    public var name: String
    /// What it takes and means, with its default.
    public var help: String

    public init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}

/// A command-line option a feed type declares (listed under SOURCES in `--help`).
public struct FeedOption: Sendable {
    /// What the option takes after its name: nothing (`flag`), one value, or a comma-separated
    /// list of names.
    public enum Value: Sendable { case flag, value, list }

    /// The long name, e.g. `--launches-url`.
    public var name: String
    public var value: Value
    /// The value's placeholder as shown (`URL`, `N`); nil for a flag.
    public var placeholder: String?
    /// The default as shown (`demo`, `25`, `off`).
    public var defaultText: String
    /// What it does, one sentence or two, without its default.
    public var help: String
    /// The values it takes when they are a fixed set (for completion); default any.
    public var choices: [String] = []

    /// An option taking one value (or a list, `value: .list`).
    public static func value(
        _ name: String, _ placeholder: String, value: Value = .value, defaultText: String, choices: [String] = [],
        _ help: String
    ) -> FeedOption {
        FeedOption(name: name, value: value, placeholder: placeholder, defaultText: defaultText, help: help, choices: choices)
    }

    /// A flag, off by default.
    public static func flag(_ name: String, _ help: String) -> FeedOption {
        FeedOption(name: name, value: .flag, placeholder: nil, defaultText: "off", help: help)
    }
}

/// One setting of a source as shown (`config --print`) and recorded (the run record).
public enum FeedSetting: Sendable, Equatable {
    case bool(Bool)
    case int(Int)
    case string(String)
    case strings([String])

    /// The setting as the run record's `options` keeps it: `true`, `5`, `text`, `a,b`.
    public var recorded: String {
        switch self {
        case .bool(let flag): return String(flag)
        case .int(let number): return String(number)
        case .string(let text): return text
        case .strings(let list): return list.joined(separator: ",")
        }
    }
}

/// What a source's crawl works with.
public struct FeedCrawlContext: Sendable {
    /// The source's feed client: replay, page cache, record, retries, rate budget, headers.
    let client: FeedClient
    let redactor: SecretRedactor
    let pipeline: ImagePipeline
    /// The source's index: its images' group in the pipeline.
    let group: Int
    /// With `--shard`: the part of the crawl this run is.
    let shard: Shard?
    /// What the archive knows of the source's pages: a page whose group needs no work is
    /// settled (its items are not submitted).
    let pages: PageLedger
}

/// A source's crawl (internal): the context's parts by name.
protocol FeedCrawl {
    var context: FeedCrawlContext { get }
}

extension FeedCrawl {
    var client: FeedClient { context.client }
    var redactor: SecretRedactor { context.redactor }
    var pipeline: ImagePipeline { context.pipeline }
    /// The source's index: its images' group in the pipeline.
    var group: Int { context.group }
    /// With `--shard`: the part of the crawl this run is.
    var shard: Shard? { context.shard }
    var pages: PageLedger { context.pages }

    /// Counts a listed page in `report` and submits its new items to the pipeline, unless the
    /// archive settles the page (its group needs no work: listed again, nothing submitted).
    /// Returns the items' pipeline tokens (none for a settled page).
    func submit(
        _ items: [FeedItem], page number: Int, reply: FeedClient.Reply, paging: String? = nil, awaitingDetails: Bool = false
    ) async -> [Int?] {
        let (listing, settled) = pages.listing(page: number, reply: reply, paging: paging)
        if settled != nil { return [] }
        return await pipeline.submit(items, group: group, listing: listing, awaitingDetails: awaitingDetails)
    }
}

/// The registered feed types.
public enum FeedSources {
    /// Every feed type, in the order help and errors list them. A new type is one line here.
    public static let registered: [any FeedSource.Type] = [
        PixabaySourceConfiguration.self,
        LaunchesSourceConfiguration.self,
        ArraySourceConfiguration.self,
    ]

    /// The type that declares command-line option `name`, or nil.
    public static func type(declaring name: String, in types: [any FeedSource.Type] = registered) -> (any FeedSource.Type)? {
        types.first { $0.commandLineOptions.contains { $0.name == name } }
    }

    /// The sources `commandLine` names, in the order of `types`.
    public static func sources(
        _ commandLine: FeedCommandLine, types: [any FeedSource.Type] = registered
    ) throws(FeedOptionError) -> [SourceConfiguration] {
        var sources: [SourceConfiguration] = []
        for type in types {
            if let source = try type.make(commandLine) { sources.append(SourceConfiguration(source)) }
        }
        return sources
    }

    /// The type named `name` among `types`, or nil.
    public static func type(named name: String, in types: [any FeedSource.Type] = registered) -> (any FeedSource.Type)? {
        types.first { $0.type == name }
    }
}
