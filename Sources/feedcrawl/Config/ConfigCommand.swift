import FeedCrawlKit
import FoundationEssentials
import Glibc

/// `feedcrawl config [--print] [options]`: the effective configuration (defaults, file,
/// environment, command line) as JSON on stdout, secrets masked.
enum ConfigCommand {
    static func run(_ arguments: [String]) -> Never {
        if arguments.contains("--help") || arguments.contains("-h") {
            Console.out(HelpText.config)
            exit(0)
        }
        let rest = arguments.filter { $0 != "--print" }
        let environment = ProcessInfo.processInfo.environment
        let loaded: LoadedConfiguration
        do {
            loaded = try LoadedConfiguration.load(arguments: rest, environment: environment)
        } catch {
            CrawlCommand.usageError(error, arguments: [])
        }
        guard loaded.options.action == .crawl else {
            Console.usageError("config takes the crawl's options, not --help/--version there", help: "feedcrawl config")
        }
        var problem: String?
        do {
            _ = try loaded.fileSources(environment: environment)
        } catch {
            problem = "\(error)"
        }
        let view = EffectiveConfiguration(loaded, environment: environment)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: try encoder.encode(view), as: UTF8.self))
        } catch {
            Console.err("feedcrawl: error: cannot print the configuration: \(error)")
            exit(ExitStatus.usage.rawValue)
        }
        if let problem {
            Console.err("feedcrawl: error: \(problem)")
            exit(ExitStatus.usage.rawValue)
        }
        exit(0)
    }
}

/// What `feedcrawl config --print` shows: every option a configuration file may set
/// (`LoadedConfiguration.fileKeys`, derived from the parser's list) under its file key with its
/// effective value (null when unset), `from` naming the layer each came from (`default`,
/// `file`, `environment` or `flag`), then `configFile`, `demo` and the `sources` a crawl would
/// use. Secrets appear only as `***` (set) or `(not set)`, and URLs lose any `key=` parameter.
struct EffectiveConfiguration: Encodable {
    /// One source as printed: `type`, `name`, `url`, `pages`, `pageTTL`, `images`, `headers`
    /// (each value `***` or `(not set)`), `key` (`***` or `(not set)`) for a source sending one,
    /// and the settings of its type (`FeedSource.settings`).
    typealias Source = [String: Value]

    /// One printed value.
    enum Value: Encodable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case string(String)
        case strings([String])
        case object([String: String])

        init(_ text: String?) { self = text.map { .string($0) } ?? .null }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let b): try container.encode(b)
            case .int(let n): try container.encode(n)
            case .string(let s): try container.encode(s)
            case .strings(let list): try container.encode(list)
            case .object(let fields): try container.encode(fields)
            }
        }
    }

    var configFile: String?
    var demo: Bool
    /// File key → effective value, for every option a file may set.
    var settings: [String: Value]
    /// File key → where its value came from.
    var from: [String: String]
    var sources: [Source]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in settings { try container.encode(value, forKey: Key(key)) }
        try container.encode(from, forKey: Key("from"))
        try container.encode(configFile.map { Value.string($0) } ?? .null, forKey: Key("configFile"))
        try container.encode(demo, forKey: Key("demo"))
        try container.encode(sources, forKey: Key("sources"))
    }

    /// The effective value of option `name` (a long name); nil for a name this view does not
    /// know, which the test that every file key is printed catches.
    static func value(of name: String, in options: CommandLineOptions) -> Value? {
        let ux = options.ux
        if let type = FeedSources.type(declaring: name) {
            switch type.shown(option: name, in: options.feedCommandLine()) {
            case nil: return .null
            case .bool(let flag)?: return .bool(flag)
            case .int(let number)?: return .int(number)
            case .string(let text)?: return .string(text)
            case .strings(let list)?: return .strings(list)
            }
        }
        switch name {
        case "--pages": return .int(options.pages)
        case "--per-page": return .int(options.perPage)
        case "--out": return .string(options.outDirectory)
        case "--s3-endpoint": return Value(options.s3Endpoint)
        case "--public-url": return Value(options.publicURL)
        case "--concurrency": return .int(options.concurrency)
        case "--per-host": return .int(options.perHost)
        case "--retries": return .int(options.retries)
        case "--ttl": return .string(duration(options.ttlSeconds))
        case "--max-image-bytes": return .string(ByteSize.format(options.maxImageBytes))
        case "--cacert": return Value(options.caFile)
        case "--shard": return Value(options.shard.map { "\($0)" })
        case "--metrics-file": return Value(options.metricsFile)
        case "--metrics-push": return Value(options.metricsPush)
        case "--page-ttl": return Value(options.pageTTLSeconds.map(duration))
        case "--refresh": return .bool(options.refreshPages)
        case "--record": return Value(options.recordDirectory)
        case "--replay": return Value(options.replayDirectory)
        case "--deadline": return Value(options.deadlineSeconds.map(duration))
        case "--max-retry-wait": return .string(duration(options.maxRetryWaitSeconds))
        case "--max-time": return .string(duration(options.maxTransferSeconds))
        case "--connect-timeout": return .string(duration(options.connectTimeoutSeconds))
        case "--allow-private-addresses": return .bool(options.allowPrivateAddresses)
        case "--user-agent": return .string(options.userAgent ?? BuildInfo.userAgent)
        case "--proxy": return Value(options.proxy.map { SecretRedactor(secrets: []).redactURL($0) })
        case "--noproxy": return Value(options.noProxy)
        case "--cache-max": return .string(ByteSize.format(options.cacheMaxBytes))
        case "--progress": return .string(ux.progress.rawValue)
        case "--no-progress": return .bool(ux.progress == .never)
        case "--progress-interval": return .string(duration(ux.progressInterval))
        case "--quiet": return .bool(ux.quiet)
        case "--verbose": return .bool(ux.verbose)
        case "--log-format": return .string(ux.logFormat.rawValue)
        case "--log-file": return Value(ux.logFile)
        case "--json": return .bool(ux.json)
        default: return nil
        }
    }

    /// Options that set the same value as another: either one's layer counts for both.
    static let sameSetting: [String: [String]] = [
        "--progress": ["--no-progress"], "--no-progress": ["--progress"],
        "--launch-images": ["--patch-size"], "--patch-size": ["--launch-images"],
    ]

    init(_ loaded: LoadedConfiguration, environment: [String: String]) {
        let options = loaded.options
        configFile = loaded.file?.path
        settings = [:]
        from = [:]
        for name in LoadedConfiguration.fileOptionNames {
            let key = ConfigFile.key(forOptionName: name)
            settings[key] = Self.value(of: name, in: options) ?? .string("(not shown)")
            let origin = ([name] + (Self.sameSetting[name] ?? [])).map(loaded.origin(of:)).max() ?? .default
            from[key] = origin.rawValue
        }

        // The sources exactly as a crawl would build them: the file's, else the command line's.
        // A secret that is not set is shown as such: build with a marker in its place.
        let unset = "feedcrawl-not-set-7f3a9c"
        var lookup = environment
        for variable in (loaded.file?.sources ?? []).flatMap(\.secretVariables) where lookup[variable, default: ""].isEmpty {
            lookup[variable] = unset
        }
        let fileSources = (try? loaded.fileSources(environment: lookup)) ?? nil
        let built = fileSources ?? (options.usesDemoFeed ? [] : options.crawlConfiguration().sources)
        let shown = { (secret: String) -> Value in .string(secret == unset || secret.isEmpty ? "(not set)" : "***") }
        var sources: [Source] = []
        for source in built {
            let redactor = SecretRedactor(secrets: source.secrets.filter { $0 != unset })
            var printed: Source = [
                "type": .string(source.type), "name": .string(source.name), "url": .string(redactor.redactURL(source.url)),
                "pages": .int(source.pages), "pageTTL": .string(Self.duration(source.pageTTL)),
                "images": .strings(source.feed.variantList),
            ]
            if let key = source.key { printed["key"] = shown(key) }
            if !source.headers.isEmpty {
                printed["headers"] = .object(Dictionary(
                    source.headers.map { ($0.name, $0.value == unset ? "(not set)" : "***") }, uniquingKeysWith: { _, last in last }))
            }
            for (key, value) in source.feed.settings(redactor) {
                switch value {
                case .bool(let flag): printed[key] = .bool(flag)
                case .int(let number): printed[key] = .int(number)
                case .string(let text): printed[key] = .string(text)
                case .strings(let list): printed[key] = .strings(list)
                }
            }
            sources.append(printed)
        }
        self.sources = sources
        demo = sources.isEmpty
    }

    /// Seconds as the shortest exact duration text: `1d`, `24h`, `10m`, `90s`, `0.5s`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds)
        if seconds == 0 { return "0s" }
        guard Double(whole) == seconds, whole > 0 else { return "\(seconds)s" }
        for (unit, size) in [("d", 86_400), ("h", 3_600), ("m", 60)] where whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }
}
