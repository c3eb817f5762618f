import FeedCrawlKit
import FeedCrawlSupport

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
    /// Where each option that is not at its default was set, by long name (`--pages`); the
    /// highest layer wins. Options not here have their default.
    var origins: [String: Origin] = [:]

    /// The layer an option's value came from.
    enum Origin: String, CaseIterable, Comparable {
        case `default`, file, environment, flag

        static func < (a: Origin, b: Origin) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// Where option `name` (a long name) got its value: `default` when no layer set it.
    func origin(of name: String) -> Origin { origins[name] ?? .default }

    /// The crawl's sources from the file, or nil when the command line names sources or the
    /// file lists none (then `options` decides: named URLs, or the demo feed).
    func fileSources(environment: [String: String]) throws -> [SourceConfiguration]? {
        guard options.usesDemoFeed, let file, let sources = file.sources, !sources.isEmpty else { return nil }
        return try sources.map { source in
            try source.configuration(
                pages: options.feed.pages, perPage: options.feed.perPage,
                overridePages: origin(of: "--pages") > .file, overridePerPage: origin(of: "--per-page") > .file,
                headers: options.feed.headers, environment: environment)
        }
    }

    /// Options that set another option's value, by long name → that option's
    /// (`--no-progress` is `--progress never`): `config --print` writes only the other, and a
    /// file may not give both.
    static let aliases: [String: String] = [
        "--no-progress": "--progress", "--patch-size": "--launch-images", "--no-log-file": "--log-file",
    ]

    /// Options a file may not set: they act at once or name sources another way.
    static let notInFile: Set<String> = Set(["--help", "--version", "--config", "--shard", "--header"] + sourceOptions)

    /// The options that name a source (each feed type's first, its URL): a file names sources
    /// in `sources`.
    static let sourceOptions: [String] = FeedSources.registered.compactMap { $0.commandLineOptions.first?.name }

    /// The options a file may set, by long name, in the parser's order: every declared option
    /// (`CommandLineOptions.declared`) but those in `notInFile`.
    static var fileOptionNames: [String] {
        CommandLineOptions.declared.map(\.name).filter { !notInFile.contains($0) }
    }

    /// The top-level keys a file may hold, sorted: `sources` and the camelCase key of each of
    /// `fileOptionNames` (`--per-page` → `perPage`).
    static var fileKeys: [String] {
        (["sources"] + fileOptionNames.map(ConfigFile.key(forOptionName:))).sorted()
    }

    /// Reads the layers. Throws `CommandLineOptions.UsageError` or `ConfigError`.
    static func load(arguments: [String], environment: [String: String]) throws -> LoadedConfiguration {
        let environmentArguments = try Self.arguments(environment: environment)
        let first = try CommandLineOptions.parse(environmentArguments + arguments, environment: environment)
        var origins: [String: Origin] = [:]
        for name in CommandLineOptions.optionNames(in: environmentArguments) { origins[name] = .environment }
        for name in CommandLineOptions.optionNames(in: arguments) { origins[name] = .flag }
        guard first.action == .crawl else {
            return LoadedConfiguration(options: first, file: nil, origins: origins)
        }

        let path: String
        var foundInOut = false
        if let named = first.ux.configPath {
            path = named
        } else {
            let candidate = first.crawl.outDirectory + "/" + ConfigFile.fileName
            guard FileIO.exists(candidate) else {
                return LoadedConfiguration(options: first, file: nil, origins: origins)
            }
            path = candidate
            foundInOut = true
        }
        let file = try ConfigFile.load(path: path, topLevelKeys: fileKeys)
        let given = Set(file.options.map(\.optionName))
        for option in file.options {
            if let other = aliases[option.optionName], given.contains(other) {
                let otherKey = ConfigFile.key(forOptionName: other)
                throw ConfigError(path: path, key: option.key,
                                  problem: "sets the same value as \"\(otherKey)\", which the file gives too; keep one of them")
            }
        }
        var fileArguments: [String] = []
        for option in file.options {
            let tokens = try Self.arguments(for: option, file: file)
            if foundInOut, option.optionName == "--out",
               tokens.last != Self.absolute(first.crawl.outDirectory, from: ".") {
                throw ConfigError(path: path, key: option.key,
                                  problem: "a \(ConfigFile.fileName) found in the output folder cannot name another one; use --config PATH")
            }
            fileArguments += tokens
            if origins[option.optionName] == nil { origins[option.optionName] = .file }
        }
        let options = try CommandLineOptions.parse(fileArguments + environmentArguments + arguments, environment: environment)
        return LoadedConfiguration(options: options, file: file, origins: origins)
    }

    /// The arguments the `FEEDCRAWL_*` variables of `environment` stand for (each option's
    /// `OptionSpec.environment`), each checked on its own so an error names the variable. On/off
    /// options take `1`/`true`/`yes`/`on` (`--NAME`) or `0`/`false`/`no`/`off` (`--no-NAME`, so
    /// the environment turns off what a file turned on).
    static func arguments(environment: [String: String]) throws -> [String] {
        var arguments: [String] = []
        for spec in CommandLineOptions.declared {
            guard let variable = spec.environment, let text = environment[variable], !text.isEmpty else { continue }
            var tokens = [spec.name]
            if spec.value == .flag {
                switch text.lowercased() {
                case "1", "true", "yes", "on": break
                case "0", "false", "no", "off": tokens = ["--no-" + spec.name.dropFirst(2)]
                default:
                    throw CommandLineOptions.UsageError(
                        description: "environment variable \(variable) takes 1 or 0, not '\(TerminalText.sanitize(text))'")
                }
            } else {
                tokens.append(text)
            }
            do {
                _ = try CommandLineOptions.parse(tokens, environment: [:])
            } catch {
                throw CommandLineOptions.UsageError(description: "environment variable \(variable): \(error)")
            }
            arguments += tokens
        }
        return arguments
    }

    /// Whether option `spec` takes a path (`--out DIR`, `--log-file PATH`, `--cacert FILE`, …).
    static func isPath(_ spec: CommandSpec.Option) -> Bool {
        ["DIR", "PATH", "FILE"].contains(spec.placeholder ?? "")
    }

    /// `path` made absolute against the folder `base` (itself made absolute against the working
    /// folder); an absolute path, an `s3://`-style URL and `-` (stderr) stay as they are.
    static func absolute(_ path: String, from base: String) -> String {
        guard !path.hasPrefix("/"), !path.contains("://"), path != "-", !path.isEmpty else { return path }
        var folder = base.isEmpty ? "." : base
        if !folder.hasPrefix("/") { folder = FileIO.currentDirectory() + (folder == "." ? "" : "/" + folder) }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return relative == "." ? folder : (folder.hasSuffix("/") ? folder + relative : folder + "/" + relative)
    }

    /// The arguments one top-level file option stands for, checked on its own so that an error
    /// names the file and the key; a relative path is taken relative to the file's folder.
    static func arguments(for option: ConfigFile.Option, file: ConfigFile) throws -> [String] {
        let name = option.optionName
        func fail(_ problem: String) -> ConfigError {
            ConfigError(path: file.path, key: option.key, problem: problem)
        }
        guard !notInFile.contains(name) else {
            if sourceOptions.contains(name) {
                throw fail("name sources in \"sources\": [{\"type\": ..., \"url\": ...}]")
            }
            if name == "--header" {
                throw fail("give headers per source: \"sources\": [{..., \"headers\": {\"Authorization\": {\"env\": \"TOKEN_VARIABLE\"}}}]")
            }
            throw fail("not allowed in a configuration file")
        }
        guard fileOptionNames.contains(name), let spec = CommandSpec.crawl.option(name) else {
            throw fail(KeySuggestion.unknownKey(option.key, valid: fileKeys))
        }
        let tokens: [String]
        switch (spec.value, option.value) {
        case (.flag, .bool(let on)):
            // `false` is `--no-NAME`, so a file can turn off what is on by default or elsewhere.
            tokens = on ? [name] : spec.isNegatable ? ["--no-" + name.dropFirst(2)] : []
        case (.flag, _):
            throw fail("expected true or false, not \(option.value.kindDescription)")
        case (.list, _):
            // The one rule for lists (as in a source's "images"): an array of names, or one
            // comma-separated string.
            guard let items = option.value.listItems else {
                throw fail("expected a list of names (an array, or one comma-separated string), not \(option.value.kindDescription)")
            }
            tokens = [name, items.joined(separator: ",")]
        case (.value, .bool):
            throw fail("expected a value for \(name), not \(option.value.kindDescription)")
        case (.value, let value):
            guard let text = value.argumentText else {
                throw fail("expected a string or a number, not \(value.kindDescription)")
            }
            // A bare number is ambiguous for a duration (seconds? minutes?): the unit is asked for.
            if case .number = value, spec.placeholder == "DURATION" || spec.placeholder == "D" {
                throw fail("a duration needs its unit: write \"\(text)s\" (or m, h, d), not the bare number \(text)")
            }
            // A relative path in a file means the same wherever the command runs (cron starts it
            // in the user's home): it is taken relative to the file's folder.
            tokens = [name, isPath(spec) ? absolute(text, from: FileIO.directoryName(of: file.path)) : text]
        }
        do {
            _ = try CommandLineOptions.parse(tokens, environment: [:])
        } catch let error as CommandLineOptions.UsageError {
            let text = error.description
            if text.hasPrefix("\(name) takes ") { throw fail("expected " + text.dropFirst(name.count + 7)) }
            if text.hasPrefix("\(name): ") { throw fail(String(text.dropFirst(name.count + 2))) }
            throw fail(text)
        }
        return tokens
    }
}
