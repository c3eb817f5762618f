import Glibc
import FeedCrawlKit

/// The command line, parsed and checked. Parsing does no I/O.
struct CommandLineOptions {
    enum Action { case crawl, help, version }

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    var action: Action = .crawl
    var pages = 5
    var perPage = 100
    var outDirectory = "output"
    /// `--out s3://BUCKET/PREFIX`: OUT in object storage (then `outDirectory` holds that text).
    var outLocation: S3Location?
    /// `--s3-endpoint`: the S3-compatible service; default `AWS_ENDPOINT_URL`, else AWS.
    var s3Endpoint: String?
    /// `--public-url`: the contact sheet's links start with it; default relative links.
    var publicURL: String?
    var concurrency = 16
    var perHost = 8
    var retries = 3
    var ttlSeconds: Double = 24 * 3600
    var maxImageBytes: Int64 = 20 << 20
    /// `--max-page-bytes`: the largest feed page accepted; default 8 MiB.
    var maxPageBytes: Int64 = CrawlConfiguration().maxPageBytes
    var caFile: String?
    /// `--header` (repeatable): sent with every feed request of every source; values are secrets.
    var headers: [HTTPHeader] = []
    var pageTTLSeconds: Double?
    var refreshPages = false
    var recordDirectory: String?
    var replayDirectory: String?
    /// `--deadline`: seconds after which the run stops scheduling and cancels what is in flight.
    var deadlineSeconds: Double?
    /// `--max-retry-wait`: the longest Retry-After waited for; default 5m.
    var maxRetryWaitSeconds: Double = 300
    /// `--max-time`: the longest one transfer attempt may take; default 5m.
    var maxTransferSeconds: Double = 300
    /// `--connect-timeout`: the longest a connection (DNS, TCP, TLS) may take; default 10s.
    var connectTimeoutSeconds: Double = 10
    /// `--allow-private-addresses`: fetch images from loopback and private addresses although
    /// the feed is not on one; default off.
    var allowPrivateAddresses = false
    /// `--user-agent`: the User-Agent of every request; default `feedcrawl/<version>`.
    var userAgent: String?
    /// `--proxy`: the proxy; default: the environment's, as curl.
    var proxy: String?
    /// `--noproxy`: hosts reached directly; default: `no_proxy`, as curl.
    var noProxy: String?
    /// `--cache-max`: cache size cap in bytes; default 2 GiB.
    var cacheMaxBytes: Int64 = 2 << 30
    /// `--shard K/N`: run one of N parts of the crawl.
    var shard: Shard?
    /// `--metrics-file PATH`: a Prometheus text file written at the end of the run.
    var metricsFile: String?
    /// `--metrics-push URL`: a Prometheus Pushgateway the same metrics are pushed to at the end.
    var metricsPush: String?
    /// Output and configuration options (progress, logs, --json, --config).
    var ux = UXOptions()

    /// The feed types' options as given, in order (`FeedSource.commandLineOptions`).
    var feedOptions: [(name: String, value: String)] = []
    /// The environment the feed types read (a key: `PIXABAY_KEY`).
    var environment: [String: String] = [:]

    /// Whether no source was named, so the built-in demo feed is crawled.
    var usesDemoFeed: Bool { !feedCommandLine().namesSource() }

    /// What the feed types take from this command line; `demoURLs`: the demo feed's URL for each
    /// type, when no source is named.
    func feedCommandLine(demoURLs: [String: String] = [:]) -> FeedCommandLine {
        var commandLine = FeedCommandLine()
        commandLine.given = feedOptions
        commandLine.pages = pages
        commandLine.perPage = perPage
        commandLine.pageTTL = pageTTLSeconds
        commandLine.headers = headers
        commandLine.environment = environment
        commandLine.replay = replayDirectory != nil
        commandLine.demoURLs = demoURLs
        return commandLine
    }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> CommandLineOptions {
        var options = CommandLineOptions()
        var list = ArgumentList(arguments, command: .crawl)
        func url(_ name: String) throws -> String {
            let text = try list.value(for: name)
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.count > 8 else {
                throw UsageError(description: "\(name) takes an http:// or https:// URL, not '\(text)'")
            }
            return text
        }
        func folder(_ name: String) throws -> String {
            let text = try list.value(for: name)
            guard !text.isEmpty else { throw UsageError(description: "\(name) needs a folder") }
            return text
        }
        func duration(_ name: String) throws -> Double {
            let text = try list.value(for: name)
            do {
                return Double(try DurationParser.parse(text))
            } catch {
                throw UsageError(description: "\(name): \(error)")
            }
        }
        // Only declared options (`declared`, the list the file's keys come from) are read.
        while let argument = try list.next() {
            let on = !list.negated
            switch argument {
            case "--help": options.action = .help
            case "--version": options.action = .version
            case "--pages": options.pages = try list.integer(for: argument, in: 0...100_000)
            case "--per-page": options.perPage = try list.integer(for: argument, in: 3...200)
            case "--out":
                options.outDirectory = try list.value(for: argument)
                guard !options.outDirectory.isEmpty else { throw UsageError(description: "--out needs a folder") }
                options.outLocation = nil
                if options.outDirectory.lowercased().hasPrefix("s3:") {
                    do {
                        options.outLocation = try S3Location(parsing: options.outDirectory)
                    } catch {
                        throw UsageError(description: "--out: \(error)")
                    }
                }
            case "--s3-endpoint": options.s3Endpoint = try url(argument)
            case "--public-url": options.publicURL = try url(argument)
            case "--concurrency": options.concurrency = try list.integer(for: argument, in: 1...1024)
            case "--per-host": options.perHost = try list.integer(for: argument, in: 1...1024)
            case "--retries": options.retries = try list.integer(for: argument, in: 0...20)
            case "--ttl":
                let text = try list.value(for: argument)
                do {
                    options.ttlSeconds = Double(try DurationParser.parse(text))
                } catch {
                    throw UsageError(description: "--ttl: \(error)")
                }
            case "--max-image-bytes":
                let text = try list.value(for: argument)
                do {
                    options.maxImageBytes = try ByteSize.parse(text)
                } catch {
                    throw UsageError(description: "--max-image-bytes: \(error)")
                }
            case "--max-page-bytes":
                let text = try list.value(for: argument)
                do {
                    options.maxPageBytes = try ByteSize.parse(text)
                } catch {
                    throw UsageError(description: "--max-page-bytes: \(error)")
                }
                guard options.maxPageBytes > 0 else {
                    throw UsageError(description: "--max-page-bytes: a page of 0 bytes holds nothing; give a size such as 8M")
                }
            case "--cacert":
                // Checked before the run: a missing bundle would fail every HTTPS request.
                let path = try list.value(for: argument)
                var info = stat()
                guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0 else {
                    throw UsageError(description: "--cacert: cannot read the CA file '\(TerminalText.sanitize(path))': "
                        + String(cString: strerror(errno == 0 ? EISDIR : errno)))
                }
                options.caFile = path
            case "--header":
                do {
                    options.headers.append(try FeedHeaders.parse(try list.value(for: argument)))
                } catch let error as FeedHeaders.Invalid {
                    throw UsageError(description: "--header: \(error)")
                }
            case "--shard":
                let text = try list.value(for: argument)
                guard let shard = Shard(text) else {
                    throw UsageError(description: "--shard takes K/N with 0 <= K < N (e.g. 2/4), not '\(TerminalText.sanitize(text))'")
                }
                options.shard = shard
            case "--metrics-file":
                let path = try list.value(for: argument)
                guard !path.isEmpty else { throw UsageError(description: "--metrics-file needs a file name") }
                options.metricsFile = path
            case "--metrics-push":
                let url = try list.value(for: argument)
                guard MetricsPush.isValid(url) else {
                    throw UsageError(description: "--metrics-push takes a Pushgateway URL such as http://pushgateway:9091, not '\(TerminalText.sanitize(url))'")
                }
                options.metricsPush = url
            case "--page-ttl":
                let text = try list.value(for: argument)
                do {
                    options.pageTTLSeconds = Double(try DurationParser.parse(text))
                } catch {
                    throw UsageError(description: "--page-ttl: \(error)")
                }
            case "--refresh": options.refreshPages = on
            case "--record": options.recordDirectory = try folder(argument)
            case "--replay": options.replayDirectory = try folder(argument)
            case "--deadline":
                let text = try list.value(for: argument)
                do {
                    options.deadlineSeconds = Double(try DurationParser.parse(text))
                } catch {
                    throw UsageError(description: "--deadline: \(error)")
                }
            case "--max-retry-wait":
                options.maxRetryWaitSeconds = try duration(argument)
            case "--max-time":
                options.maxTransferSeconds = try duration(argument)
                guard options.maxTransferSeconds > 0 else { throw UsageError(description: "--max-time must be more than 0s") }
            case "--connect-timeout":
                options.connectTimeoutSeconds = try duration(argument)
                guard options.connectTimeoutSeconds > 0 else {
                    throw UsageError(description: "--connect-timeout must be more than 0s")
                }
            case "--allow-private-addresses": options.allowPrivateAddresses = on
            case "--user-agent":
                let text = try list.value(for: argument)
                guard !text.isEmpty, text.utf8.count <= 256, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw UsageError(description: "--user-agent takes 1 to 256 printable characters")
                }
                options.userAgent = text
            case "--proxy":
                let text = try list.value(for: argument)
                guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
                    throw UsageError(description: "--proxy takes a proxy URL such as http://proxy.example:3128")
                }
                options.proxy = text
            case "--noproxy":
                options.noProxy = try list.value(for: argument)
            case "--cache-max":
                let text = try list.value(for: argument)
                do {
                    options.cacheMaxBytes = try ByteSize.parse(text)
                } catch {
                    throw UsageError(description: "--cache-max: \(error)")
                }
            default:
                if let type = FeedSources.type(declaring: argument) {
                    if list.negated {
                        // `--no-NAME`: what a lower layer (the file, the environment) turned on goes.
                        options.feedOptions.removeAll { $0.name == argument }
                        continue
                    }
                    let value = valueKind(of: argument) == .flag ? "" : try list.value(for: argument)
                    do {
                        try type.check(option: argument, value: value)
                    } catch {
                        throw UsageError(description: error.description)
                    }
                    options.feedOptions.append((argument, value))
                    continue
                }
                guard try options.ux.parse(argument, on: on, value: { try list.value(for: argument) }) else {
                    throw UsageError(description: "unknown option '\(TerminalText.sanitize(argument))'")
                }
            }
        }
        if options.recordDirectory != nil && options.replayDirectory != nil {
            throw UsageError(description: "--record and --replay cannot be combined")
        }
        if options.replayDirectory != nil && options.usesDemoFeed {
            throw UsageError(description: "--replay needs the sources that were recorded (--pixabay-url, --launches-url, --array-url)")
        }
        options.environment = environment
        do {
            _ = try FeedSources.sources(options.feedCommandLine())
        } catch {
            throw UsageError(description: error.description)
        }
        return options
    }

    /// The push `--metrics-push` asks for (with this command line's proxy, CA bundle and user
    /// agent), or `nil`.
    func metricsPushTarget() -> MetricsPush? {
        guard let metricsPush else { return nil }
        var push = MetricsPush(baseURL: metricsPush, shard: shard)
        push.engine = HTTPEngine.Configuration(
            maxConcurrentTransfers: 1, caInfo: caFile, proxy: proxy, noProxy: noProxy)
        if let userAgent { push.engine.userAgent = userAgent }
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
        var target = ObjectStoreTarget(location: outLocation, configuration: configuration)
        target.publicURL = publicURL
        if let tmp = environment["TMPDIR"], !tmp.isEmpty { target.stagingRoot = tmp }
        return target
    }

    /// The crawl this command line asks for, with the demo feed's URLs (by type) when no source
    /// is named.
    func crawlConfiguration(demoURLs: [String: String] = [:]) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(outDirectory: outDirectory)
        configuration.concurrency = concurrency
        configuration.perHost = perHost
        configuration.retries = retries
        configuration.ttlSeconds = ttlSeconds
        configuration.maxImageBytes = maxImageBytes
        configuration.maxPageBytes = maxPageBytes
        configuration.caInfo = caFile
        configuration.refreshPages = refreshPages
        configuration.recordDirectory = recordDirectory
        configuration.replayDirectory = replayDirectory
        configuration.deadlineSeconds = deadlineSeconds
        configuration.cacheMaxBytes = cacheMaxBytes
        configuration.maxRetryWaitSeconds = maxRetryWaitSeconds
        configuration.maxTransferSeconds = maxTransferSeconds
        configuration.connectTimeoutMs = Int(connectTimeoutSeconds * 1000)
        configuration.allowPrivateAddresses = allowPrivateAddresses
        if let userAgent { configuration.userAgent = userAgent }
        configuration.proxy = proxy
        configuration.noProxy = noProxy
        configuration.shard = shard
        // The options were checked by `parse`.
        configuration.sources = (try? FeedSources.sources(feedCommandLine(demoURLs: demoURLs))) ?? []
        return configuration
    }
}
