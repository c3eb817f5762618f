import Glibc
import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP
import FeedCrawlStorage

/// The command line, parsed and checked. Parsing does no I/O.
struct CommandLineOptions {
    enum Action { case crawl, help, version }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    var action: Action = .crawl
    /// What the feed types read: `--pages` (default 5), `--per-page` (default 100), `--page-ttl`
    /// (default per feed type), the `--header`s (repeatable; values are secrets), the feed
    /// types' own options as given, in order (`FeedSource.commandLineOptions`), and the
    /// environment they read (a key: `PIXABAY_KEY`).
    var feed = FeedCommandLine()
    /// The crawl's settings that options set as they are (`--out`, `--concurrency`, `--ttl`, …),
    /// with `CrawlConfiguration`'s defaults, which are the command line's.
    var crawl = CrawlConfiguration()
    /// `--out s3://BUCKET/PREFIX`: OUT in object storage (then `crawl.outDirectory` holds that text).
    var outLocation: S3Location?
    /// `--s3-endpoint`: the S3-compatible service; default `AWS_ENDPOINT_URL`, else AWS.
    var s3Endpoint: String?
    /// `--public-url`: the contact sheet's links start with it; default relative links.
    var publicURL: String?
    /// `--connect-timeout`: the longest a connection (DNS, TCP, TLS) may take; default 10s.
    var connectTimeoutSeconds: Double = 10
    /// `--user-agent`: the User-Agent of every request; default `feedcrawl/<version>`.
    var userAgent: String?
    /// `--metrics-file PATH`: a Prometheus text file written at the end of the run.
    var metricsFile: String?
    /// `--metrics-push URL`: a Prometheus Pushgateway the same metrics are pushed to at the end.
    var metricsPush: String?
    /// Output and configuration options (progress, logs, --json, --config).
    var ux = UXOptions()

    /// Whether no source was named, so the built-in demo feed is crawled.
    var usesDemoFeed: Bool { !feed.namesSource() }

    /// What the feed types take from this command line; `demoURLs`: the demo feed's URL for each
    /// type, when no source is named.
    func feedCommandLine(demoURLs: [String: String] = [:]) -> FeedCommandLine {
        var commandLine = feed
        commandLine.replay = crawl.replayDirectory != nil
        commandLine.demoURLs = demoURLs
        return commandLine
    }

    /// Reads `arguments`, each declared option through its `Binding`; then checks what no single
    /// option can.
    static func parse(_ arguments: [String], environment: [String: String]) throws -> CommandLineOptions {
        var options = try ArgumentList.read(arguments, command: .crawl, into: CommandLineOptions())
        if options.crawl.recordDirectory != nil && options.crawl.replayDirectory != nil {
            throw UsageError(description: "--record and --replay cannot be combined")
        }
        if options.crawl.replayDirectory != nil && options.usesDemoFeed {
            throw UsageError(description: "--replay needs the sources that were recorded (--pixabay-url, --launches-url, --array-url)")
        }
        options.feed.environment = environment
        do {
            _ = try FeedSources.sources(options.feedCommandLine())
        } catch {
            throw UsageError(description: error.description)
        }
        return options
    }

    /// One transfer at a time with this command line's CA bundle, proxy and user agent: for the
    /// metrics push and the merge's object store.
    func network() -> HTTPEngine.Configuration {
        var engine = HTTPEngine.Configuration(
            maxConcurrentTransfers: 1, caInfo: crawl.caInfo, proxy: crawl.proxy, noProxy: crawl.noProxy)
        if let userAgent { engine.userAgent = userAgent }
        return engine
    }

    /// The push `--metrics-push` asks for (over `network()`), or `nil`.
    func metricsPushTarget() -> MetricsPush? {
        guard let metricsPush else { return nil }
        var push = MetricsPush(baseURL: metricsPush, shard: crawl.shard)
        push.engine = network()
        return push
    }

    /// The object storage `--out s3://…` names, reached as `--s3-endpoint` and the `AWS_*`
    /// variables of `environment` say, with `--public-url`; nil for an OUT on disk. Throws a
    /// `UsageError` when credentials are missing or the endpoint is unusable.
    func objectStoreTarget(environment: [String: String]) throws -> ObjectStoreTarget? {
        guard let outLocation else { return nil }
        let configuration: S3Configuration
        do {
            // The store's requests follow the run's one policy (--retries, --deadline, timeouts).
            configuration = try S3Configuration.fromEnvironment(
                environment, endpoint: s3Endpoint, policy: Crawler.requestPolicy(crawlConfiguration()))
        } catch {
            throw UsageError(description: "--out \(outLocation): \(error)")
        }
        return ObjectStoreTarget(location: outLocation, configuration: configuration)
    }

    /// The crawl this command line asks for, with the demo feed's URLs (by type) when no source
    /// is named.
    func crawlConfiguration(demoURLs: [String: String] = [:]) -> CrawlConfiguration {
        var configuration = crawl
        configuration.connectTimeoutMs = Int(connectTimeoutSeconds * 1000)
        if let userAgent { configuration.userAgent = userAgent }
        // The options were checked by `parse`.
        configuration.sources = (try? FeedSources.sources(feedCommandLine(demoURLs: demoURLs))) ?? []
        return configuration
    }
}

extension CommandLineOptions {
    typealias Binding = OptionBinding<CommandLineOptions>
}

/// Where an option's value goes (in `Root`, the options of its command) and how it is checked,
/// part of its declaration: `ArgumentList.read` reads the option with `read`, `feedcrawl config
/// --print` shows a crawl option's value with `shown`.
struct OptionBinding<Root>: Sendable {
    typealias Key<Value> = any WritableKeyPath<Root, Value> & Sendable
    typealias Shown = EffectiveConfiguration.Value
    typealias UsageError = CommandLineOptions.UsageError

    /// Reads option `name` (taking its value from the list; `on` false for `--no-NAME`) into
    /// the options; throws a `UsageError` naming the option.
    var read: @Sendable (inout Root, inout ArgumentList, _ name: String, _ on: Bool) throws -> Void
    /// The effective value as `config --print` shows it; nil (the default) for an option a file
    /// cannot set.
    var shown: @Sendable (Root) -> Shown? = { _ in nil }

    /// A check of a text value (`name`, `text`) that throws a `UsageError`.
    typealias Check = @Sendable (_ name: String, _ text: String) throws -> Void

    /// An on/off option: `--NAME` sets it, `--no-NAME` clears it.
    static func flag(_ key: Key<Bool>) -> Self {
        Self(read: { options, _, _, on in options[keyPath: key] = on }, shown: { .bool($0[keyPath: key]) })
    }

    /// A whole number within `range`.
    static func int(_ key: Key<Int>, _ range: ClosedRange<Int>) -> Self {
        Self(read: { options, list, name, _ in options[keyPath: key] = try list.integer(for: name, in: range) },
                shown: { .int($0[keyPath: key]) })
    }

    /// A duration (`90s`, `10m`, `24h`, `7d`), shown as the help writes it; `positive`: more
    /// than 0s, else refused; `atLeast`: a shorter one is raised to it (default 0).
    static func duration(_ key: Key<Double>, positive: Bool = false, atLeast: Double = 0) -> Self {
        Self(read: { options, list, name, _ in
            let seconds = try list.duration(for: name)
            guard !positive || seconds > 0 else { throw UsageError(description: "\(name) must be more than 0s") }
            options[keyPath: key] = max(atLeast, seconds)
        }, shown: { .string(EffectiveConfiguration.duration($0[keyPath: key])) })
    }

    /// A duration that is unset (nil) unless given.
    static func duration(_ key: Key<Double?>) -> Self {
        Self(read: { options, list, name, _ in options[keyPath: key] = try list.duration(for: name) },
                shown: { Shown($0[keyPath: key].map(EffectiveConfiguration.duration)) })
    }

    /// `--max-delete N` or `N%`: a number of items, or a percentage of the archive's.
    static func limit(_ key: Key<ItemLimit?>) -> Self {
        Self(read: { options, list, name, _ in
            let text = try list.value(for: name)
            if text.hasSuffix("%"), let percent = Double(text.dropLast()), percent.isFinite, (0...100).contains(percent) {
                options[keyPath: key] = .percent(percent)
            } else if let count = Int(text), count >= 0 {
                options[keyPath: key] = .items(count)
            } else {
                throw UsageError(description: "\(name) takes a number of items (500) or a percentage (10%), not '\(TerminalText.sanitize(text))'")
            }
        }, shown: { options in
            switch options[keyPath: key] {
            case nil: return Shown(nil as String?)
            case .items(let count)?: return .string(String(count))
            case .percent(let share)?: return .string((share == share.rounded() ? String(Int(share)) : String(share)) + "%")
            }
        })
    }

    /// A size (`500K`, `20M`); `zero`, when given, refuses 0 with that reason.
    static func size(_ key: Key<Int64>, zero: String? = nil) -> Self {
        Self(read: { options, list, name, _ in
            let text = try list.value(for: name)
            do {
                options[keyPath: key] = try ByteSize.parse(text)
            } catch {
                throw UsageError(description: "\(name): \(error)")
            }
            if let zero, options[keyPath: key] <= 0 { throw UsageError(description: "\(name): \(zero)") }
        }, shown: { .string(ByteSize.exact($0[keyPath: key])) })
    }

    /// One of a fixed set of names (an enum's raw values): `--progress takes auto, always or
    /// never, not 'x'`.
    static func choice<T: RawRepresentable<String> & CaseIterable & Sendable>(_ key: Key<T>) -> Self {
        Self(read: { options, list, name, _ in
            let text = try list.value(for: name)
            guard let value = T(rawValue: text) else {
                let names = T.allCases.map(\.rawValue)
                throw UsageError(description: "\(name) takes \(names.dropLast().joined(separator: ", ")) or "
                    + "\(names.last ?? ""), not '\(TerminalText.sanitize(text))'")
            }
            options[keyPath: key] = value
        }, shown: { .string($0[keyPath: key].rawValue) })
    }

    /// A text that is unset (nil) unless given, checked by `check`; `shown` (default: as
    /// given) is what `config --print` makes of it.
    static func text(
        _ key: Key<String?>, _ check: @escaping Check = { _, _ in },
        shown: @escaping @Sendable (String) -> String = { $0 }
    ) -> Self {
        Self(read: { options, list, name, _ in
            let text = try list.value(for: name)
            try check(name, text)
            options[keyPath: key] = text
        }, shown: { Shown($0[keyPath: key].map(shown)) })
    }

    /// Refuses an empty value: `--log-file needs a file name`.
    static func needs(_ what: String) -> Check {
        { name, text in if text.isEmpty { throw UsageError(description: "\(name) needs \(what)") } }
    }

    /// Takes only an http:// or https:// URL.
    static var httpURL: Check { { name, text in
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.count > 8 else {
            throw UsageError(description: "\(name) takes an http:// or https:// URL, not '\(text)'")
        }
    } }

    /// Takes only a Pushgateway URL.
    static var pushgateway: Check { { name, text in
        guard MetricsPush.isValid(text) else {
            throw UsageError(description: "\(name) takes a Pushgateway URL such as http://pushgateway:9091, "
                + "not '\(TerminalText.sanitize(text))'")
        }
    } }

    /// Refuses text with control characters, as `refused` says (`also`: more refused
    /// characters, the space for a URL).
    static func printable(_ refused: String, maxBytes: Int = .max, also: UInt32 = 0x1F) -> Check {
        { _, text in
            guard !text.isEmpty, text.utf8.count <= maxBytes,
                  !text.unicodeScalars.contains(where: { $0.value <= also || $0.value == 0x7F })
            else { throw UsageError(description: refused) }
        }
    }

}

extension OptionBinding where Root == CommandLineOptions {
    /// A feed type's option, checked by that type and kept by name; `--no-NAME` drops what a
    /// lower layer (the file, the environment) turned on.
    static var feed: Self { Self(read: { options, list, name, on in
        guard on else { return options.feed.given.removeAll { $0.name == name } }
        let value = list.command.option(name)?.value == .flag ? "" : try list.value(for: name)
        do {
            try FeedSources.type(declaring: name)?.check(option: name, value: value)
        } catch let error as FeedOptionError {
            throw UsageError(description: error.description)
        }
        options.feed.given.append((name, value))
    }) }

    /// Sets what `--help` and `--version` ask for.
    static func action(_ action: CommandLineOptions.Action) -> Self {
        Self(read: { options, _, _, _ in options.action = action })
    }

    /// `--out`: a folder, or `s3://BUCKET/PREFIX`.
    static var out: Self { Self(read: { options, list, name, _ in
        options.crawl.outDirectory = try list.value(for: name)
        try needs("a folder")(name, options.crawl.outDirectory)
        options.outLocation = nil
        if options.crawl.outDirectory.lowercased().hasPrefix("s3:") {
            do {
                options.outLocation = try S3Location(parsing: options.crawl.outDirectory)
            } catch {
                throw UsageError(description: "--out: \(error)")
            }
        }
    }, shown: { .string($0.crawl.outDirectory) }) }

    /// `--cacert`: checked before the run, as a missing bundle would fail every HTTPS request.
    static var caFile: Self { text(\.crawl.caInfo) { name, path in
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else {
            throw UsageError(description: "\(name): cannot read the CA file '\(TerminalText.sanitize(path))': "
                + String(cString: strerror(errno == 0 ? EISDIR : errno)))
        }
    } }

    /// `--header` (repeatable): each one is added.
    static var header: Self { Self(read: { options, list, name, _ in
        do {
            options.feed.headers.append(try FeedHeaders.parse(try list.value(for: name)))
        } catch let error as FeedHeaders.Invalid {
            throw UsageError(description: "\(name): \(error)")
        }
    }) }

    /// `--shard K/N`.
    static var shard: Self { Self(read: { options, list, name, _ in
        let text = try list.value(for: name)
        guard let shard = Shard(text) else {
            throw UsageError(description: "\(name) takes K/N with 0 <= K < N (e.g. 2/4), not '\(TerminalText.sanitize(text))'")
        }
        options.crawl.shard = shard
    }) }
}
