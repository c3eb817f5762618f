import FeedCrawlKit
import FeedCrawlSupport

/// One command of feedcrawl, declared once: `main` dispatches on its words, its parser accepts
/// only its `options`, and the completion scripts, the "did you mean" of a misspelt option or
/// command and `help`'s topics all read the same declaration.
struct CommandSpec: Sendable {
    typealias Option = CommandLineOptions.OptionSpec

    /// The words after `feedcrawl` that name it (`["manifest", "merge"]`); empty for the crawl.
    var words: [String]
    /// What it does, one line (for completion menus and `feedcrawl --help`).
    var summary: String
    /// The options it accepts.
    var options: [Option]
    /// The words it takes that are not options (help topics, shells); empty (the default) when none.
    var operands: [String] = []

    /// Its subcommands (`merge` for `manifest`; `config`, `manifest`, … for the crawl, which
    /// `feedcrawl` runs when no subcommand is named).
    var subcommands: [CommandSpec] {
        CommandSpec.all.filter { $0.words.count == words.count + 1 && $0.words.starts(with: words) }
    }

    /// An identifier for it in completion scripts: `crawl`, `manifest_merge`, `demo_feed`.
    var identifier: String {
        words.isEmpty ? "crawl" : words.joined(separator: "_").replacing("-", with: "_")
    }

    /// `feedcrawl manifest merge`, `feedcrawl` for the crawl.
    var displayName: String { (["feedcrawl"] + words).joined(separator: " ") }

    /// The declaration of `argument` (a long or a short name: `-h` is `--help`) among this
    /// command's options.
    func option(_ argument: String) -> Option? {
        options.first { $0.name == argument || $0.short == argument }
    }

    /// `unknown option '--page' for 'feedcrawl manifest'; did you mean '--pages'?` (the
    /// suggestion only when one is close).
    func unknownOption(_ given: String) -> CommandLineOptions.UsageError {
        var text = "unknown option '\(TerminalText.sanitize(given))'"
        if !words.isEmpty { text += " for '\(displayName)'" }
        let names = options.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }
        if let near = KeySuggestion.closest(to: given, among: names) {
            text += "; did you mean '\(near)'?"
        } else {
            text += " (see '\(displayName) --help')"
        }
        return CommandLineOptions.UsageError(description: text)
    }
}

extension CommandSpec {
    /// Where a `demo-feed` option's value goes.
    private typealias Demo = OptionBinding<DemoFeedCommand.Options>
    /// Where a `manifest` option's value goes.
    private typealias Manifest = OptionBinding<ManifestCommand.Options>
    private static let helpOption = Option.flag("--help", short: "-h", .options, defaultText: nil, "Show this help and exit.")

    /// `--out`, `--s3-endpoint` and `--config` of a command that reads or changes an archive
    /// (`manifest`, `forget`): one declaration of where OUT is, bound to each command's options
    /// (given or not: `ArchiveLocation` resolves them as the crawl would).
    private static func whereOUTIs<Root>(
        out: OptionBinding<Root>.Key<String?>, endpoint: OptionBinding<Root>.Key<String?>,
        config: OptionBinding<Root>.Key<String?>
    ) -> [Option] {
        typealias Binding = OptionBinding<Root>
        return [
            .value("--out", "DIR", .options, defaultText: "FEEDCRAWL_OUT, else the configuration's out, else ./output",
                   "Output folder of the crawl, or s3://BUCKET/PREFIX for one in object storage.")
                .bind(Binding.text(out, Binding.needs("a folder"))),
            .value("--s3-endpoint", "URL", .options, defaultText: "the configuration's s3Endpoint, else AWS_ENDPOINT_URL, else AWS",
                   "The S3-compatible service of an s3:// OUT.").bind(Binding { options, list, name, _ in
                let text = try list.value(for: name)
                guard text.lowercased().hasPrefix("http://") || text.lowercased().hasPrefix("https://") else {
                    throw Binding.UsageError(description: "--s3-endpoint takes an http:// or https:// URL")
                }
                options[keyPath: endpoint] = text
            }),
            .value("--config", "PATH", .options, defaultText: "FEEDCRAWL_CONFIG, else OUT/feedcrawl.json",
                   "Take OUT (and its s3Endpoint) from the configuration file the crawl reads.")
                .bind(Binding.text(config, Binding.needs("a file name"))),
        ]
    }

    /// `feedcrawl [options]`: the crawl.
    static let crawl = CommandSpec(words: [], summary: "Crawl the configured feeds into OUT",
                                   options: CommandLineOptions.declared)

    /// `feedcrawl manifest [options]`.
    static let manifest = CommandSpec(
        words: ["manifest"], summary: "Summarise, list or verify what a crawl left in OUT",
        options: whereOUTIs(out: \ManifestCommand.Options.location.out, endpoint: \.location.s3Endpoint, config: \.location.config) + [
            .value("--status", "S", .options, kind: .list, defaultText: nil,
                   choices: ItemStatus.allCases.map(\.rawValue),
                   "List items with status S (comma-separated or repeated for several).").bind(Manifest.filter { filter, _, text in
                do {
                    filter.statuses.formUnion(try ItemFilter.parseStatuses(text))
                } catch let error as ItemFilter.InvalidStatus {
                    throw Manifest.UsageError(description: "--status: \(error)")
                }
            }),
            .value("--source", "SOURCE", .options, defaultText: nil,
                   "List items of source SOURCE, as the archive names its sources (repeatable; --sources lists them); a name the archive "
                       + "does not hold is an error that lists the ones it does.")
                .bind(Manifest.filter { filter, _, text in filter.sources.insert(text) }),
            .value("--id", "ID", .options, defaultText: nil, "List the item with this id (repeatable).")
                .bind(Manifest.filter { filter, _, text in filter.ids.insert(text) }),
            .value("--variant", "V", .options, kind: .list, defaultText: nil,
                   choices: Array(Set(FeedSources.registered.flatMap { $0.variantNames })).sorted(),
                   "List items with an image of variant V (preview, webformat, large, small or another the archive holds).")
                .bind(Manifest.filter { filter, _, text in filter.variants.formUnion(text.split(separator: ",").map { String($0) }) }),
            .value("--error", "TEXT", .options, defaultText: nil,
                   "List items whose error, or an image's error, contains TEXT (case-insensitive).")
                .bind(Manifest.filter { filter, _, text in
                    guard !text.isEmpty else { throw Manifest.UsageError(description: "--error needs a text to look for") }
                    filter.errorText = text
                }),
            .value("--page", "N[-M]", .options, defaultText: nil, "List items listed on feed page N (or pages N to M).")
                .bind(Manifest.filter { filter, _, text in
                    guard let pages = ItemFilter.parsePages(text) else {
                        throw Manifest.UsageError(
                            description: "--page takes a page number or a range such as 2-5, not '\(TerminalText.sanitize(text))'")
                    }
                    filter.pages = pages
                }),
            .value("--seen-since", "WHEN", .options, defaultText: nil,
                   "List items last seen at or after WHEN: a date (2026-12-01), a UTC time (2026-12-01T08:00:00Z) or a "
                       + "duration ago (24h, 7d).").bind(Manifest.time),
            .value("--seen-before", "WHEN", .options, defaultText: nil,
                   "List items last seen before WHEN (as --seen-since): what recent runs no longer list.")
                .bind(Manifest.time),
            .flag("--all", .options, "List every item of every source.").bind(Manifest.on { if $1 { $0.listing = true } }),
            .value("--format", "F", .options, defaultText: "table", choices: InspectionFormat.allCases.map(\.rawValue),
                   "table (for people), json (for scripts), csv (spreadsheets) or ndjson (one item a line, for jq).")
                .bind(Manifest.choice(\.format)),
            .flag("--json", .options, "Short for --format json.").bind(Manifest.on { if $1 { $0.format = .json } }),
            .flag("--verify", .options,
                  "Re-read every cached file and report missing, corrupt, incomplete and orphaned files.")
                .bind(Manifest.on { $0.verify = $1 }),
            .flag("--sources", .options,
                  "Print the names of the archive's sources, one a line (what --source takes; shell completion uses it).")
                .bind(Manifest.on { $0.sources = $1 }),
            .flag("--repair", .options,
                  "With --verify: remove the corrupt, incomplete and orphaned files.").bind(Manifest.on { $0.repair = $1 }),
            helpOption.bind(Manifest.on { $0.help = $1 }),
        ])

    /// `feedcrawl manifest export [--out OUT]`: the whole archive as one version-2 document.
    static let export = CommandSpec(
        words: ["manifest", "export"], summary: "Write the whole archive as one version-2 manifest document",
        options: manifest.options.filter { ["--out", "--s3-endpoint", "--config", "--help"].contains($0.name) })

    /// `feedcrawl manifest merge [crawl options]`: takes the crawl's options.
    static let merge = CommandSpec(
        words: ["manifest", "merge"], summary: "Join the shard parts of OUT into its manifest",
        options: CommandLineOptions.declared)

    /// Where a `forget` option's value goes.
    private typealias Forgetting = OptionBinding<ForgetCommand.Options>

    /// `feedcrawl forget [filters] [--dry-run] [--max-delete N|P%]`.
    static let forget = CommandSpec(
        words: ["forget"], summary: "Take items out of the archive, then the images nothing else names",
        options: whereOUTIs(out: \ForgetCommand.Options.location.out, endpoint: \.location.s3Endpoint, config: \.location.config) + [
            .value("--not-listed-for", "DURATION", .options, defaultText: nil,
                   "Forget items no run listed within DURATION (30d, 12h) before the archive's most recent run "
                       + "started; 0s: everything that run did not list.")
                .bind(Forgetting.duration(\.rule.notListedFor)),
            .value("--source", "SOURCE", .options, defaultText: nil,
                   "Forget items of source SOURCE, as the archive names it (repeatable; manifest --sources lists them): a source removed or renamed "
                       + "in the configuration.")
                .bind(Forgetting { options, list, name, _ in options.rule.sources.insert(try list.value(for: name)) }),
            .value("--status", "S", .options, kind: .list, defaultText: nil, choices: ItemStatus.allCases.map(\.rawValue),
                   "Forget items with status S (comma-separated or repeated), e.g. failed,no-image.")
                .bind(Forgetting { options, list, name, _ in
                    do {
                        options.rule.statuses.formUnion(try ItemFilter.parseStatuses(try list.value(for: name)))
                    } catch let error as ItemFilter.InvalidStatus {
                        throw Forgetting.UsageError(description: "--status: \(error)")
                    }
                }),
            .value("--id", "ID", .options, defaultText: nil, "Forget the item with this id (repeatable).")
                .bind(Forgetting { options, list, name, _ in options.rule.ids.insert(try list.value(for: name)) }),
            .flag("--dry-run", .options,
                  "Say what would be forgotten and removed (counts, bytes, a sample); change nothing, take no lock.")
                .bind(Forgetting.flag(\.dryRun)),
            .value("--max-delete", "N|P%", .options, defaultText: "no limit",
                   "Refuse, changing nothing (exit status 1), a forget of more than N items or P% of the archive's.")
                .bind(Forgetting.limit(\.limit)),
            .flag("--json", .options, "Print what was done as one JSON object on stdout.").bind(Forgetting.flag(\.json)),
            .value("--metrics-file", "PATH", .options, defaultText: "none",
                   "Write the archive's items, files and what this forget took out as Prometheus text to PATH "
                       + "(atomically; not on a dry run), as a crawl's --metrics-file does.")
                .bind(Forgetting { options, list, name, _ in
                    let path = try list.value(for: name)
                    try Forgetting.needs("a file")(name, path)
                    options.metricsFile = path
                }),
            helpOption.bind(Forgetting.flag(\.help)),
        ])

    /// `feedcrawl config [--print | --origins] [crawl options]`.
    static let config = CommandSpec(
        words: ["config"], summary: "Print the effective configuration as a configuration file",
        options: [
            .flag("--print", .options, defaultText: "on",
                  "Print the effective configuration as a configuration file (the default)."),
            .flag("--origins", .options, defaultText: "off",
                  "Print where each value came from (default, file, environment or flag) instead."),
        ] + CommandLineOptions.declared)

    /// `feedcrawl demo-feed [options]`.
    static let demoFeed = CommandSpec(
        words: ["demo-feed"], summary: "Serve the built-in demo feed",
        options: [
            .value("--port", "N", .options, defaultText: "0: chosen by the OS", "Port to listen on, 0-65535.")
                .bind(Demo.int(\.port, 0...65_535)),
            .value("--hits", "N", .options, defaultText: "500", "Pixabay hits served, 0-1000000.").bind(Demo { options, list, name, _ in
                options.feed.hits = try list.integer(for: name, in: 0...1_000_000)
                options.feed.hitsCap = options.feed.hits
            }),
            .value("--launches", "N", .options, defaultText: "100", "Launches in the GraphQL feed, 0-100000.")
                .bind(Demo.int(\.feed.launches, 0...100_000)),
            .value("--latency-ms", "N", .options, defaultText: "0",
                   "Delay added to every API, GraphQL and image response, 0-60000.").bind(Demo.int(\.feed.latencyMs, 0...60_000)),
            .value("--seed", "N", .options, defaultText: "1", "Seed of the generated data set.").bind(Demo { options, list, name, _ in
                let text = try list.value(for: name)
                guard let seed = UInt64(text) else {
                    throw Demo.UsageError(description: "--seed takes a whole number from 0 to \(UInt64.max), not '\(TerminalText.sanitize(text))'")
                }
                options.feed.seed = seed
            }),
            .value("--rate-limit", "N", .options, defaultText: "no limit",
                   "Answer /api/ with 429 (and Retry-After) after N requests per key per window.")
                .bind(Demo { options, list, name, _ in options.feed.rateLimit = try list.integer(for: name, in: 1...1_000_000) }),
            .value("--rate-window", "SECONDS", .options, defaultText: "60", "The rate-limit window; needs --rate-limit.")
                .bind(Demo { options, list, name, _ in
                    let text = try list.value(for: name)
                    guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                        throw Demo.UsageError(
                            description: "--rate-window takes seconds, more than 0 and at most 86400, not '\(TerminalText.sanitize(text))'")
                    }
                    options.feed.rateWindowSeconds = seconds
                    options.rateWindowGiven = true
                }),
            .value("--image-bytes", "N", .options, defaultText: "2000", "Mean image size in bytes, 1-10000000.")
                .bind(Demo.int(\.feed.imageBytes, 1...10_000_000)),
            helpOption.bind(Demo.flag(\.help)),
        ])

    /// `feedcrawl help [TOPIC]`.
    static let help = CommandSpec(
        words: ["help"], summary: "Show help on a topic, or the man page",
        options: [
            .flag("--man", .options, defaultText: nil, "Print the man page (roff)."),
            .flag("--options-json", .options, defaultText: nil, "Print the option declarations as JSON."),
        ],
        operands: HelpText.topics.keys.sorted())

    /// `feedcrawl completion SHELL`.
    static let completion = CommandSpec(
        words: ["completion"], summary: "Print a completion script for bash, zsh or fish",
        options: [], operands: ["bash", "zsh", "fish"])

    /// Every command; the crawl first, then the subcommands in the order completion offers them.
    static let all: [CommandSpec] = [crawl, config, manifest, export, merge, forget, demoFeed, help, completion]
}
