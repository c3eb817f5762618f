import FeedCrawlKit
import FeedCrawlSupport
import FoundationEssentials
import Glibc

/// `feedcrawl config [--print | --origins] [options]`: the effective configuration (defaults,
/// file, environment, command line) as a configuration file on stdout, or where each value
/// came from; secrets never shown.
enum ConfigCommand {
    static func run(_ arguments: [String]) -> Never {
        if arguments.contains("--help") || arguments.contains("-h") {
            HelpText.show(HelpText.config)
            exit(0)
        }
        let origins = arguments.contains("--origins")
        let rest = arguments.filter { $0 != "--print" && $0 != "--origins" }
        let environment = ProcessInfo.processInfo.environment
        let loaded: LoadedConfiguration
        do {
            loaded = try LoadedConfiguration.load(arguments: rest, environment: environment)
        } catch let error as CommandLineOptions.UsageError {
            // An unknown word is judged against config's own options too (`--prnt`: `--print`).
            if let word = rest.first(where: { $0.hasPrefix("-") && error.description.hasPrefix("unknown option '\(TerminalText.sanitize($0))'") }) {
                Console.usageError(CommandSpec.config.unknownOption(word).description, help: "feedcrawl config")
            }
            CrawlCommand.usageError(error, arguments: [])
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
            let data = origins ? try encoder.encode(view.origins) : try encoder.encode(view)
            Console.out(String(decoding: data, as: UTF8.self))
        } catch {
            Console.err("feedcrawl: error: cannot print the configuration: \(error)")
            exit(ExitStatus.usage.rawValue)
        }
        if !origins, !view.unprintedHeaders.isEmpty {
            Console.err("feedcrawl: note: --header values are secrets and are not printed (\(view.unprintedHeaders.joined(separator: ", "))); "
                + "in a file, give each as {\"env\": \"VARIABLE\"} in its source's \"headers\"")
        }
        if let problem {
            Console.err("feedcrawl: error: \(problem)")
            exit(ExitStatus.usage.rawValue)
        }
        exit(0)
    }
}

/// What `feedcrawl config --print` shows: a configuration file that gives the same
/// configuration when read back (`--config`), and prints the same again: every option a file
/// may set (`LoadedConfiguration.fileKeys`) that has a value, under its file key, durations and
/// sizes as the help writes them (`24h`, `2G`), and the `sources` a crawl would use in the
/// file's form (omitted for the demo feed). Secrets never appear: a key is named by its
/// variable (`keyEnv`), a header from the file by its `{"env": "VARIABLE"}`, and `--header`
/// values are left out (named on stderr). `--origins` prints `origins` instead.
struct EffectiveConfiguration: Encodable {
    /// One source as a file's `sources` entry: `type`, `name`, `url`, `pages`, `pageTtl`,
    /// `images`, `headers` (from a file only), and the settings of its type
    /// (`FeedSource.settings`, which name a key's variable, never the key).
    typealias Source = [String: Value]

    /// One printed value.
    enum Value: Encodable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case string(String)
        case strings([String])
        case object([String: Value])
        case list([Value])

        init(_ text: String?) { self = text.map { .string($0) } ?? .null }

        /// A feed type's setting (`FeedSource.shown`, `settings`), or `.null` for nil.
        init(_ setting: FeedSetting?) {
            switch setting {
            case nil: self = .null
            case .bool(let flag)?: self = .bool(flag)
            case .int(let number)?: self = .int(number)
            case .string(let text)?: self = .string(text)
            case .strings(let list)?: self = .strings(list)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let b): try container.encode(b)
            case .int(let n): try container.encode(n)
            case .string(let s): try container.encode(s)
            case .strings(let list): try container.encode(list)
            case .object(let fields): try container.encode(fields)
            case .list(let values): try container.encode(values)
            }
        }
    }

    /// File key → effective value, for every option a file may set that has one.
    var settings: [String: Value]
    /// The sources, nil for the demo feed.
    var sources: [Source]?
    /// Where the configuration came from (`config --origins`): the file read (`configFile`,
    /// null: none), whether the crawl would use the demo feed (`demo`), for every key a file may
    /// set the layer its value came from (`from`: `default`, `file`, `environment` or `flag`),
    /// and for each variable the sources read a secret from whether it is set (`secrets`).
    var origins: Value
    /// The names of `--header`s not printed (their values are secrets).
    var unprintedHeaders: [String] = []

    func encode(to encoder: any Encoder) throws {
        var fields = settings.filter { $0.value != .null }
        if let sources { fields["sources"] = .list(sources.map(Value.object)) }
        try Value.object(fields).encode(to: encoder)
    }

    /// The effective value of option `name` (a long name), as its declaration shows it; nil for
    /// a name this view does not know, which the test that every file key is printed catches.
    static func value(of name: String, in options: CommandLineOptions) -> Value? {
        if let type = FeedSources.type(declaring: name) {
            return Value(type.shown(option: name, in: options.feedCommandLine()))
        }
        return (CommandSpec.crawl.option(name)?.binding as? CommandLineOptions.Binding)?.shown(options)
    }

    /// Options that set the same value as another (`LoadedConfiguration.aliases`, both ways):
    /// either one's layer counts for both.
    static let sameSetting: [String: [String]] = {
        var same: [String: [String]] = [:]
        for (alias, option) in LoadedConfiguration.aliases {
            same[alias, default: []].append(option)
            same[option, default: []].append(alias)
        }
        return same
    }()

    init(_ loaded: LoadedConfiguration, environment: [String: String]) {
        let options = loaded.options
        settings = [:]
        var from: [String: String] = [:]
        for name in LoadedConfiguration.fileOptionNames {
            let key = ConfigFile.key(forOptionName: name)
            // An alias is printed as the option it sets, once: a file holding both would
            // freeze the alias's value against an edit of the other.
            if LoadedConfiguration.aliases[name] == nil {
                var value = Self.value(of: name, in: options) ?? .string("(not shown)")
                // Paths absolute, so that the printed file means the same wherever it is saved
                // (a file's relative paths are relative to its folder).
                if case .string(let path) = value, let spec = CommandSpec.crawl.option(name), LoadedConfiguration.isPath(spec) {
                    value = .string(LoadedConfiguration.absolute(path, from: "."))
                }
                settings[key] = value
            }
            let origin = ([name] + (Self.sameSetting[name] ?? [])).map(loaded.origin(of:)).max() ?? .default
            from[key] = origin.rawValue
        }

        // The sources exactly as a crawl would build them: the file's, else the command line's.
        // A secret that is not set is built with a marker in its place.
        let unset = "feedcrawl-not-set-7f3a9c"
        var lookup = environment
        let fileEntries = loaded.file?.sources ?? []
        var secrets: [String: String] = [:]
        for variable in fileEntries.flatMap(\.secretVariables) {
            let isSet = !lookup[variable, default: ""].isEmpty
            secrets[variable] = isSet ? "set" : "not set"
            if !isSet { lookup[variable] = unset }
        }
        let fileSources = (try? loaded.fileSources(environment: lookup)) ?? nil
        let built = fileSources ?? (options.usesDemoFeed ? [] : options.crawlConfiguration().sources)
        var sources: [Source] = []
        for (index, source) in built.enumerated() {
            let redactor = SecretRedactor(secrets: source.secrets.filter { $0 != unset })
            var printed: Source = [
                "type": .string(source.type), "name": .string(source.name), "url": .string(redactor.redactURL(source.url)),
            ]
            // Pages, page TTL and images only where the file's entry sets its own: printed from
            // the top level, they would override a later edit of the top-level key.
            let own = fileSources == nil ? [:] : fileEntries[index].entry.fields
            if own["pages"] != nil { printed["pages"] = .int(source.pages) }
            if own["pageTtl"] != nil { printed["pageTtl"] = .string(Self.duration(source.pageTTL)) }
            if own["images"] != nil { printed["images"] = .strings(source.feed.variantList) }
            // Headers as the file gives them (a variable's name, or a value that is no secret);
            // the command line's are secrets, named on stderr.
            let written = fileSources == nil ? [] : fileEntries[index].entry.headers
            var headers: [String: Value] = [:]
            for header in written {
                headers[header.name] = header.env.map { .object(["env": .string($0)]) } ?? .string(header.value ?? "")
            }
            if !headers.isEmpty { printed["headers"] = .object(headers) }
            for header in options.feed.headers where !unprintedHeaders.contains(header.name) {
                unprintedHeaders.append(header.name)
            }
            for (key, value) in source.feed.settings(redactor) { printed[key] = Value(value) }
            sources.append(printed)
        }
        self.sources = sources.isEmpty ? nil : sources
        origins = .object(["configFile": Value(loaded.file?.path), "demo": .bool(sources.isEmpty),
                           "from": .object(from.mapValues(Value.string)), "secrets": .object(secrets.mapValues(Value.string))])
    }

    /// Seconds as an exact duration text as the help writes them: `24h`, `5m`, `10s`, `0.5s`;
    /// days only from two on (`7d`), so a day reads `24h` as in the docs.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds)
        if seconds == 0 { return "0s" }
        guard Double(whole) == seconds, whole > 0 else { return "\(seconds)s" }
        if whole % 86_400 == 0 && whole >= 2 * 86_400 { return "\(whole / 86_400)d" }
        for (unit, size) in [("h", 3_600), ("m", 60)] where whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }
}
