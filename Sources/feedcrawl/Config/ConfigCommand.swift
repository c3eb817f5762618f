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

/// What `feedcrawl config --print` shows. Keys match the configuration file's; secrets appear
/// only as `***` (set) or `(not set)`, and URLs lose any `key=` parameter.
struct EffectiveConfiguration: Encodable {
    struct Source: Encodable {
        var type: String
        var name: String
        var url: String
        var pages: Int
        var perPage: Int?
        var query: String?
        var imageType: String?
        var pageConcurrency: Int?
        var keyEnv: String?
        var key: String?
        var pageTTL: String?
        var images: [String]?
        var details: Bool?
        var idField: String?
        var imageField: String?
        var titleField: String?
    }

    var configFile: String?
    var demo: Bool
    var out: String
    var pages: Int
    var perPage: Int
    var concurrency: Int
    var perHost: Int
    var retries: Int
    var ttl: String
    var maxImageBytes: String
    var cacert: String?
    var progress: String
    var progressInterval: String
    var quiet: Bool
    var verbose: Bool
    var logFormat: String
    var logFile: String?
    var json: Bool
    var sources: [Source]

    init(_ loaded: LoadedConfiguration, environment: [String: String]) {
        let options = loaded.options
        configFile = loaded.file?.path
        out = options.outDirectory
        pages = options.pages
        perPage = options.perPage
        concurrency = options.concurrency
        perHost = options.perHost
        retries = options.retries
        ttl = Self.duration(options.ttlSeconds)
        maxImageBytes = ByteSize.format(options.maxImageBytes)
        cacert = options.caFile
        progress = options.ux.progress.rawValue
        progressInterval = Self.duration(options.ux.progressInterval)
        quiet = options.ux.quiet
        verbose = options.ux.verbose
        logFormat = options.ux.logFormat.rawValue
        logFile = options.ux.logFile
        json = options.ux.json

        // The sources exactly as a crawl would build them: the file's, else the command line's.
        // A key that is not set is shown as such: build with a marker in its place.
        let unset = "\u{1}(not set)"
        var lookup = environment
        for source in loaded.file?.sources ?? [] where source.kind == .pixabay {
            let variable = source.keyEnv ?? ConfigSource.defaultKeyEnv
            if lookup[variable, default: ""].isEmpty { lookup[variable] = unset }
        }
        let fileSources = (try? loaded.fileSources(environment: lookup)) ?? nil
        let built = fileSources ?? (options.usesDemoFeed ? [] : options.crawlConfiguration().sources)
        let fileKeyEnvs = Dictionary(
            (loaded.file?.sources ?? []).map { ($0.name, $0.keyEnv ?? ConfigSource.defaultKeyEnv) },
            uniquingKeysWith: { first, _ in first })
        var sources: [Source] = []
        for source in built {
            switch source {
            case .pixabay(let config):
                let redactor = SecretRedactor(secrets: [config.key])
                sources.append(Source(
                    type: "pixabay", name: config.name, url: redactor.redactURL(config.url), pages: config.pages,
                    perPage: config.perPage, query: config.query.map(redactor.redact), imageType: config.imageType,
                    pageConcurrency: config.pageConcurrency,
                    keyEnv: fileKeyEnvs[config.name] ?? ConfigSource.defaultKeyEnv,
                    key: config.key == unset || config.key.isEmpty ? "(not set)" : "***", pageTTL: Self.duration(config.pageTTL),
                    images: config.variants.map(\.rawValue)))
            case .launches(let config):
                sources.append(Source(
                    type: "launches", name: config.name, url: config.url, pages: config.pages,
                    pageTTL: Self.duration(config.pageTTL), images: config.effectiveVariants.map(\.rawValue),
                    details: config.details))
            case .array(let config):
                sources.append(Source(
                    type: "array", name: config.name, url: config.url, pages: config.pages, perPage: config.perPage,
                    pageTTL: Self.duration(config.pageTTL), images: [ArrayPage.variant], idField: config.idField,
                    imageField: config.imageField,
                    titleField: config.titleField))
            }
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
