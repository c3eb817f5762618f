import FeedCrawlKit
import FeedCrawlSupport

extension CommandLineOptions {
    /// The part of `feedcrawl --help` (and of the man page) an option is listed in.
    enum HelpSection: String, CaseIterable, Sendable {
        /// Where the crawl reads from: "SOURCES".
        case sources
        /// How the crawl runs: "OPTIONS".
        case options
        /// What it prints and writes besides the images: "OUTPUT AND LOGS".
        case output

        /// The heading of the section in `--help`, e.g. `OPTIONS`.
        var heading: String {
            switch self {
            case .sources: "SOURCES"
            case .options: "OPTIONS"
            case .output: "OUTPUT AND LOGS"
            }
        }
    }

    /// One option, declared once: the parser, `--help`, `help --man`, the completion scripts,
    /// the configuration file's keys and `config --print` all read it from `declared`.
    struct OptionSpec: Sendable {
        /// The long name, e.g. `--pages`.
        var name: String
        /// The short name, e.g. `-q`; nil (the default) when there is none.
        var short: String?
        /// What the option takes after its name: nothing (`--quiet`), one value (`--pages 3`) or
        /// comma-separated names (`--pixabay-images preview,large`; a file may write a JSON array).
        var value: FeedOption.Value
        /// The value's placeholder as shown to people (`N`, `URL`, `DURATION`); nil for a flag.
        var placeholder: String?
        /// The default as shown to people (`5`, `./output`, `off`); nil when none is shown.
        var defaultText: String?
        /// What the option does, one sentence or two, without its default.
        var help: String
        /// The help section it is listed in.
        var section: HelpSection
        /// The values it takes when they are a fixed set (for a list, each name), taken from the
        /// parser's own enums, for completion; empty (the default) when any value goes.
        var choices: [String] = []
        /// The `FEEDCRAWL_*` environment variable that sets it (between the configuration file
        /// and the command line); nil (the default) when none does.
        var environment: String? = nil
        /// Where its command's parser puts its value (an `OptionBinding` of that command's
        /// options; `config --print` shows a crawl option's by it); nil (the default) for an
        /// option its command reads otherwise.
        var binding: (any Sendable)? = nil

        /// Whether `--no-NAME` turns it off: every on/off option but `--help`, `--version` and
        /// the `--no-…` options themselves.
        var isNegatable: Bool {
            value == .flag && name != "--help" && name != "--version" && !name.hasPrefix("--no-")
        }

        /// This option, read by its command's parser through `binding`.
        func bind<Root>(_ binding: OptionBinding<Root>) -> OptionSpec {
            var spec = self
            spec.binding = binding
            return spec
        }

        /// A flag (`value` `.flag`, no placeholder) whose default is shown as `off` unless
        /// `defaultText` says otherwise; `environment`: the variable that also sets it.
        static func flag(
            _ name: String, short: String? = nil, _ section: HelpSection, defaultText: String? = "off",
            _ help: String, _ binding: Binding? = nil, environment: String? = nil
        ) -> OptionSpec {
            OptionSpec(
                name: name, short: short, value: .flag, placeholder: nil, defaultText: defaultText, help: help,
                section: section, environment: environment, binding: binding)
        }

        /// An option taking one value (`kind` `.value`, the default) or a list (`.list`);
        /// `environment`: the variable that also sets it.
        static func value(
            _ name: String, short: String? = nil, _ placeholder: String, _ section: HelpSection,
            kind: FeedOption.Value = .value, defaultText: String?, choices: [String] = [], _ help: String,
            _ binding: Binding? = nil, environment: String? = nil
        ) -> OptionSpec {
            OptionSpec(
                name: name, short: short, value: kind, placeholder: placeholder, defaultText: defaultText,
                help: help, section: section, choices: choices, environment: environment, binding: binding)
        }
    }

    /// Every option `parse` accepts, in the order `--help` lists them within a section. `parse`
    /// refuses any name not here, so this is the one list that the configuration file's keys
    /// (`LoadedConfiguration.fileKeys`), their spelling suggestions, `feedcrawl config --print`,
    /// the option lines of `--help`, the man page and the completion scripts are derived from.
    static let declared: [OptionSpec] = feedOptions + runOptions

    /// The SOURCES options: each feed type's (`FeedSource.commandLineOptions`), in the order of
    /// `FeedSources.registered`, then `--header`, which every source takes.
    static let feedOptions: [OptionSpec] = {
        var options: [OptionSpec] = []
        for type in FeedSources.registered {
            for option in type.commandLineOptions { options.append(OptionSpec(option)) }
        }
        options.append(.value(
            "--header", "'NAME: VALUE'", .sources, defaultText: "none",
            "A header sent with every feed request (not with images), as curl's -H; repeatable. "
                + "The value is a secret: it is never written or printed. A configuration file "
                + "gives a source's headers in its \"headers\".", .header))
        return options
    }()

    /// The options that are not a feed type's.
    static let runOptions: [OptionSpec] = [
        // Options
        .value("--pages", "N", .options, defaultText: "5", "Feed pages to fetch per source.",
               .int(\.feed.pages, 0...100_000), environment: "FEEDCRAWL_PAGES"),
        .value("--per-page", "N", .options, defaultText: "100",
               "Pixabay hits per page, 3-200 (launches: --launches-page-size; arrays: --array-per-page).",
               .int(\.feed.perPage, 3...200)),
        .value("--out", "DIR", .options, defaultText: "./output",
               "Output folder for cache/, manifest.json and index.html, the contact sheet written after "
                   + "every run; or s3://BUCKET/PREFIX for S3-compatible object storage (credentials from "
                   + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).", .out, environment: "FEEDCRAWL_OUT"),
        .value("--s3-endpoint", "URL", .options, defaultText: "AWS_ENDPOINT_URL, else AWS",
               "The S3-compatible service an s3:// OUT is on (path-style addressing), e.g. "
                   + "http://127.0.0.1:8333.", .text(\.s3Endpoint, Binding.httpURL)),
        .value("--public-url", "URL", .options, defaultText: "relative links",
               "Where OUT is served over HTTP (a CDN, the bucket's website): the contact sheet links "
                   + "its images and manifest there.", .text(\.publicURL, Binding.httpURL)),
        .value("--concurrency", "N", .options, defaultText: "16", "Image transfers in flight at once.",
               .int(\.crawl.concurrency, 1...1024)),
        .value("--per-host", "N", .options, defaultText: "8", "Image transfers in flight to one host.",
               .int(\.crawl.perHost, 1...1024)),
        .value("--retries", "N", .options, defaultText: "3",
               "Retries of a transient failure (network error, 5xx, 408, 429, body cut short).",
               .int(\.crawl.retries, 0...20)),
        .value("--max-retry-wait", "DURATION", .options, defaultText: "5m",
               "The longest Retry-After waited for; a server that asks for more fails that request at "
                   + "once, saying what it asked.", .duration(\.crawl.maxRetryWaitSeconds)),
        .value("--max-time", "DURATION", .options, defaultText: "5m",
               "The longest one transfer attempt (a feed page or an image) may take; past it the attempt "
                   + "fails and is retried.", .duration(\.crawl.maxTransferSeconds, positive: true)),
        .value("--connect-timeout", "DURATION", .options, defaultText: "10s",
               "The longest a connection (DNS, TCP, TLS) may take.",
               .duration(\.connectTimeoutSeconds, positive: true)),
        .flag("--allow-private-addresses", .options,
              "Fetch images from loopback and private addresses (127/8, 10/8, 172.16/12, 192.168/16, "
                  + "::1, fc00::/7) although no feed is on one. Link-local addresses (169.254/16, "
                  + "fe80::/10) are never fetched.", .flag(\.crawl.allowPrivateAddresses)),
        .value("--ttl", "DURATION", .options, defaultText: "24h",
               "Cached images younger than this are not requested again, e.g. 90s, 10m, 24h, 7d.",
               .duration(\.crawl.ttlSeconds)),
        .value("--max-image-bytes", "SIZE", .options, defaultText: "20M",
               "Largest image accepted, e.g. 500K, 20M; larger ones are rejected.", .size(\.crawl.maxImageBytes)),
        .value("--max-page-bytes", "SIZE", .options, defaultText: "8M",
               "Largest feed page accepted, e.g. 2M, 64M; a larger page fails, naming this option. "
                   + "A list on a page may hold one element per 64 bytes of SIZE (131,072 at 8M); decoding a page "
                   + "costs about its size and its items.",
               .size(\.crawl.maxPageBytes, zero: "a page of 0 bytes holds nothing; give a size such as 8M")),
        .value("--cacert", "FILE", .options, defaultText: "system",
               "Trust the CA certificates in FILE for HTTPS, as curl's option does.", .caFile),
        .value("--proxy", "URL", .options, defaultText: "environment",
               "Send requests through this proxy instead of the environment's http_proxy, https_proxy "
                   + "and all_proxy, which are honoured as curl does.",
               .text(\.crawl.proxy, Binding.printable("--proxy takes a proxy URL such as http://proxy.example:3128",
                                                        also: 0x20), shown: SecretRedactor(secrets: []).redactURL)),
        .value("--noproxy", "LIST", .options, defaultText: "environment",
               "Hosts reached without a proxy, comma-separated, instead of the environment's no_proxy. "
                   + "Loopback (the demo feed) is never proxied.", .text(\.crawl.noProxy)),
        .value("--user-agent", "TEXT", .options, defaultText: "feedcrawl/\(BuildInfo.version)",
               "The User-Agent of every request.",
               .text(\.userAgent, Binding.printable("--user-agent takes 1 to 256 printable characters", maxBytes: 256))),
        .value("--page-ttl", "DURATION", .options, defaultText: "24h Pixabay, 0 others",
               "Reuse feed pages fetched less than this ago, kept in OUT/pages/ (Pixabay's terms ask "
                   + "for 24h).", .duration(\.feed.pageTTL)),
        .flag("--refresh", .options, "Ignore the kept feed pages: fetch every page anew.", .flag(\.crawl.refreshPages)),
        .value("--record", "DIR", .options, defaultText: "off",
               "Save every feed response (status, headers, body; key removed) under DIR as it is fetched.",
               .text(\.crawl.recordDirectory, Binding.needs("a folder"))),
        .value("--replay", "DIR", .options, defaultText: "off",
               "Take every feed response from a --record DIR instead of the network (name the same "
                   + "sources); images are fetched as usual.",
               .text(\.crawl.replayDirectory, Binding.needs("a folder"))),
        .value("--deadline", "DURATION", .options, defaultText: "none",
               "Stop after DURATION (e.g. 10m): stop scheduling, cancel transfers in flight, write the "
                   + "manifest; unfinished items are 'cancelled' (exit status 1).", .duration(\.crawl.deadlineSeconds)),
        .value("--cache-max", "SIZE", .options, defaultText: "2G",
               "After the run, evict least-recently-used images this run did not use until OUT (images, "
                   + "the archive's own files, kept feed pages, the contact sheet) takes at most SIZE, e.g. 500M.",
               .size(\.crawl.cacheMaxBytes)),
        .value("--forget-after", "DURATION", .options, defaultText: "never",
               "At the end of the run, forget the items no run listed for DURATION (e.g. 30d) of the sources "
                   + "that listed every page this run, then their images no kept item names (feedcrawl forget).",
               .duration(\.crawl.forgetAfterSeconds)),
        .value("--max-delete", "N|P%", .options, defaultText: "no limit",
               "With --forget-after: forget nothing (and exit 1) when more than N items, or P% of the "
                   + "archive's, would go.", .limit(\.crawl.maxDelete)),
        .value("--max-failures", "N|P%", .options, defaultText: "0",
               "Exit 0, not 1, when at most N items, or P% of those the run listed, failed or were "
                   + "rejected (with --only-new-failures: new failures); every failure is still counted "
                   + "and listed.", .limit(\.crawl.failureTolerance.maxFailures)),
        .flag("--only-new-failures", .options,
              "Only new failures make the exit status 1: an item that failed the same way (status, "
                  + "URL and error of each image) when the archive last recorded it is not news.",
              .flag(\.crawl.failureTolerance.onlyNew)),
        .value("--shard", "K/N", .options, defaultText: "none",
               "Run shard K (0 <= K < N) of N parts of the crawl, with the others at once on the same "
                   + "OUT; join them with 'feedcrawl manifest merge'.", .shard),
        .flag("--version", .options, defaultText: nil,
              "Print the version, the commit it was built from and libcurl's version and features, "
                  + "and exit.", .action(.version)),
        .flag("--help", short: "-h", .options, defaultText: nil, "Show this help and exit.", .action(.help)),
        // Output and logs (UXOptions)
        .value("--progress", "MODE", .output, defaultText: "auto",
               choices: UXOptions.Progress.allCases.map(\.rawValue),
               "How progress is shown: auto, a live display when stderr is a terminal, else a log line "
                   + "per page and a progress line every --progress-interval; always, the live display "
                   + "even when not a terminal; never, neither.",
               .choice(\.ux.progress), environment: "FEEDCRAWL_PROGRESS"),
        .flag("--no-progress", .output, "The same as --progress never.",
               Binding(read: { options, _, _, _ in options.ux.progress = .never },
                       shown: { .bool($0.ux.progress == .never) })),
        .value("--progress-interval", "D", .output, defaultText: "10s",
               "Time between progress lines when there is no live display.",
               .duration(\.ux.progressInterval, atLeast: 0.05)),
        .flag("--quiet", short: "-q", .output,
              "Print nothing when the run ends with status 0 (for cron); otherwise only warnings, "
                  + "errors and the summary.", .flag(\.ux.quiet), environment: "FEEDCRAWL_QUIET"),
        .flag("--verbose", short: "-v", .output,
              "One log line per image transfer (URL, status, size, dimensions, time, error), and pages "
                  + "and retries also above the live display.", .flag(\.ux.verbose)),
        .value("--log-format", "FORMAT", .output, defaultText: "text",
               choices: LogFormat.allCases.map(\.rawValue),
               "text or json: one JSON object per line with timestamp, level, source, event, message "
                   + "and fields.", .choice(\.ux.logFormat), environment: "FEEDCRAWL_LOG_FORMAT"),
        .value("--log-file", "PATH", .output, defaultText: "stderr",
               "Append log lines to PATH (text lines get a timestamp; its folder is created if "
                   + "missing); stderr still gets warnings, errors and the summary. '-' is stderr.",
               Binding(read: { options, list, name, _ in
                   let text = try list.value(for: name)
                   try Binding.needs("a file name")(name, text)
                   options.ux.logFile = text == "-" ? nil : text
               }, shown: { EffectiveConfiguration.Value($0.ux.logFile) }), environment: "FEEDCRAWL_LOG_FILE"),
        .flag("--no-log-file", .output,
              "Log to stderr, not to the log file a configuration or FEEDCRAWL_LOG_FILE names (a "
                  + "manual run, to watch it).",
              Binding(read: { options, _, _, _ in options.ux.logFile = nil }, shown: { .bool($0.ux.logFile == nil) })),
        .flag("--json", .output,
              "Print the run summary as one JSON object on stdout (counts by status, bytes, seconds, "
                  + "per-source pages and errors, exit status). Nothing else is ever printed on stdout.",
               .flag(\.ux.json)),
        .value("--config", "PATH", .output, defaultText: "OUT/feedcrawl.json",
               "Read options and sources from PATH (the default only when it exists). Precedence: "
                   + "flags > environment > file > defaults.",
               .text(\.ux.configPath, Binding.needs("a file name")), environment: "FEEDCRAWL_CONFIG"),
        .value("--metrics-file", "PATH", .output, defaultText: "none",
               "Write Prometheus metrics to PATH at the end of the run, for node_exporter's textfile "
                   + "collector (its folder is created if missing).",
               .text(\.metricsFile, Binding.needs("a file name"))),
        .value("--metrics-push", "URL", .output, defaultText: "none",
               "Push the same metrics to the Prometheus Pushgateway at URL at the end of the run: PUT "
                   + "URL/metrics/job/feedcrawl (a shard's to a group of its own), within 10 s. A failed "
                   + "push is an error, exit status 1.", .text(\.metricsPush, Binding.pushgateway)),
    ]

    /// The declared long names given in `arguments` (which `parse` accepts), in order, values
    /// skipped (`["-q", "--no-json", "--pages", "3", "--out=o"]` → `["--quiet", "--json",
    /// "--pages", "--out"]`), as `ArgumentList` reads them.
    static func optionNames(in arguments: [String]) -> [String] {
        var list = ArgumentList(arguments, command: .crawl)
        var names: [String] = []
        while let option = try? list.next() {
            names.append(option.name)
            if option.value != .flag { _ = try? list.value(for: option.name) }
        }
        return names
    }
}

extension CommandLineOptions.OptionSpec {
    /// A feed type's option, listed under SOURCES.
    init(_ option: FeedOption) {
        self.init(
            name: option.name, short: nil, value: option.value, placeholder: option.placeholder,
            defaultText: option.defaultText, help: option.help, section: .sources, choices: option.choices,
            binding: CommandLineOptions.Binding.feed)
    }
}
