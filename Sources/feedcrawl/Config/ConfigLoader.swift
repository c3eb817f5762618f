import FeedCrawlKit

/// Builds the effective options from four layers, lowest first: defaults, the configuration
/// file, `FEEDCRAWL_*` environment variables, the command line.
///
/// Each layer is turned into command-line arguments and the parser reads them in that order, so
/// a later layer overrides an earlier one option by option. The file is `--config PATH`
/// (or `FEEDCRAWL_CONFIG`), else `OUT/feedcrawl.json` when it exists.
struct LoadedConfiguration {
    /// The effective options.
    var options: CommandLineOptions
    /// The file read, if any.
    var file: ConfigFile?
    /// Options given on the command line or in the environment (e.g. `--pages`).
    var explicit: Set<String>

    /// The crawl's sources from the file, or nil when the command line names sources or the
    /// file lists none (then `options` decides: named URLs, or the demo feed).
    func fileSources(environment: [String: String]) throws -> [SourceConfiguration]? {
        guard options.usesDemoFeed, let file, let sources = file.sources, !sources.isEmpty else { return nil }
        return try sources.enumerated().map { index, source in
            try source.configuration(
                pages: options.pages, perPage: options.perPage,
                overridePages: explicit.contains("--pages"), overridePerPage: explicit.contains("--per-page"),
                environment: environment, index: index, path: file.path)
        }
    }

    /// Options a file may not set: they act at once or name sources another way.
    static let notInFile: Set<String> = ["--help", "--version", "--config", "--pixabay-url", "--launches-url", "--shard"]

    /// Reads the layers. Throws `CommandLineOptions.UsageError` or `ConfigError`.
    static func load(arguments: [String], environment: [String: String]) throws -> LoadedConfiguration {
        let environmentArguments = try EnvironmentOptions.arguments(environment)
        let first = try CommandLineOptions.parse(environmentArguments + arguments, environment: environment)
        let explicit = Set((environmentArguments + arguments).compactMap { argument -> String? in
            guard argument.hasPrefix("--") else { return nil }
            return String(argument.prefix { $0 != "=" })
        })
        guard first.action == .crawl else {
            return LoadedConfiguration(options: first, file: nil, explicit: explicit)
        }

        let path: String
        var foundInOut = false
        if let named = first.ux.configPath {
            path = named
        } else {
            let candidate = first.outDirectory + "/" + ConfigFile.fileName
            guard FileIO.exists(candidate) else {
                return LoadedConfiguration(options: first, file: nil, explicit: explicit)
            }
            path = candidate
            foundInOut = true
        }
        let file = try ConfigFile.load(path: path)
        var fileArguments: [String] = []
        for option in file.options {
            let tokens = try Self.arguments(for: option, file: file)
            if foundInOut, option.optionName == "--out", tokens.last != first.outDirectory {
                throw ConfigError(path: path, key: option.key,
                                  problem: "a \(ConfigFile.fileName) found in the output folder cannot name another one; use --config PATH")
            }
            fileArguments += tokens
        }
        let options = try CommandLineOptions.parse(fileArguments + environmentArguments + arguments, environment: environment)
        return LoadedConfiguration(options: options, file: file, explicit: explicit)
    }

    /// The arguments one top-level file option stands for, checked on its own so that an error
    /// names the file and the key.
    static func arguments(for option: ConfigFile.Option, file: ConfigFile) throws -> [String] {
        let name = option.optionName
        func fail(_ problem: String) -> ConfigError {
            ConfigError(path: file.path, key: option.key, problem: problem)
        }
        guard !notInFile.contains(name) else {
            if name == "--pixabay-url" || name == "--launches-url" {
                throw fail("name sources in \"sources\": [{\"type\": ..., \"url\": ...}]")
            }
            throw fail("not allowed in a configuration file")
        }
        // Is it an option at all, and does it take a value? A flag parses on its own.
        let alone = Result { try CommandLineOptions.parse([name], environment: [:]) }
        if case .failure(let error) = alone, "\(error)" == "unknown option '\(name)'" {
            throw fail("unknown key")
        }
        let isFlag = (try? alone.get()) != nil
        let tokens: [String]
        switch option.value {
        case .bool(let on):
            guard isFlag else { throw fail("expected a value for \(name), not \(option.value.kindDescription)") }
            tokens = on ? [name] : []
        default:
            if isFlag { throw fail("expected true or false, not \(option.value.kindDescription)") }
            guard let text = option.value.argumentText else {
                throw fail("expected a string or a number, not \(option.value.kindDescription)")
            }
            tokens = [name, text]
        }
        do {
            _ = try CommandLineOptions.parse(tokens, environment: [:])
        } catch let error as CommandLineOptions.UsageError {
            if error.description.hasPrefix("unknown option") { throw fail("unknown key") }
            let text = error.description
            if text.hasPrefix("\(name) takes ") { throw fail("expected " + text.dropFirst(name.count + 7)) }
            if text.hasPrefix("\(name): ") { throw fail(String(text.dropFirst(name.count + 2))) }
            throw fail(text)
        }
        return tokens
    }
}
