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
    var pixabayURL: String?
    var launchesURL: String?
    var concurrency = 16
    var perHost = 8
    var retries = 3
    var ttlSeconds: Double = 24 * 3600
    var maxImageBytes: Int64 = 20 << 20
    var caFile: String?
    var pixabayQuery: String?
    var arrayURL: String?
    var arrayIDField: String?
    var arrayImageField: String?
    var arrayTitleField: String?
    var arrayName = "array"
    var arrayPerPage = 25
    /// `--pixabay-images`: the Pixabay variants to fetch; default preview.
    var pixabayImages: [PixabayVariant] = [.preview]
    /// `--launch-images` (or `--patch-size`): the launch patch sizes to fetch; default small.
    var launchImages: [LaunchesQuery.PatchSize] = [.small]
    var details = false
    /// `--header` (repeatable): sent with every feed request of every source; values are secrets.
    var headers: [HTTPHeader] = []
    /// `--launches-page-size`: launches per page, sent as `pageSize`; default nil (not sent).
    var launchesPageSize: Int?
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
    /// The Pixabay key, from PIXABAY_KEY; never printed.
    var pixabayKey: String?
    /// Output and configuration options (progress, logs, --json, --config).
    var ux = UXOptions()

    /// Whether no source was named, so the built-in demo feed is crawled.
    var usesDemoFeed: Bool { pixabayURL == nil && launchesURL == nil && arrayURL == nil }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> CommandLineOptions {
        var options = CommandLineOptions()
        var list = ArgumentList(arguments)
        func url(_ name: String) throws -> String {
            let text = try list.value(for: name)
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.count > 8 else {
                throw UsageError(description: "\(name) takes an http:// or https:// URL, not '\(text)'")
            }
            return text
        }
        func field(_ name: String) throws -> String {
            let text = try list.value(for: name)
            guard !text.isEmpty, text.utf8.count <= 200 else {
                throw UsageError(description: "\(name) takes a field name (dots reach into objects)")
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
        while let given = list.next() {
            // Only declared options (`declared`, the list the file's keys come from) are read.
            guard let argument = declaredName(given) else {
                throw UsageError(description: "unknown option '\(TerminalText.sanitize(given))'")
            }
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
            case "--pixabay-url": options.pixabayURL = try url(argument)
            case "--launches-url": options.launchesURL = try url(argument)
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
            case "--cacert": options.caFile = try list.value(for: argument)
            case "--pixabay-query":
                options.pixabayQuery = try list.value(for: argument)
                guard options.pixabayQuery?.count ?? 0 <= PixabayQuery.maxQueryCharacters else {
                    throw UsageError(description: "--pixabay-query takes at most \(PixabayQuery.maxQueryCharacters) characters")
                }
            case "--array-url": options.arrayURL = try url(argument)
            case "--array-id-field": options.arrayIDField = try field(argument)
            case "--array-image-field": options.arrayImageField = try field(argument)
            case "--array-title-field": options.arrayTitleField = try field(argument)
            case "--array-name":
                options.arrayName = try list.value(for: argument)
                guard SourceConfiguration.isValidName(options.arrayName),
                      !["pixabay", "launches"].contains(options.arrayName) else {
                    throw UsageError(description: "--array-name takes 1 to 64 of A-Z a-z 0-9 . _ - (not pixabay or launches), not '\(options.arrayName)'")
                }
            case "--array-per-page": options.arrayPerPage = try list.integer(for: argument, in: 1...1000)
            case "--patch-size":
                let text = try list.value(for: argument)
                guard let size = LaunchesQuery.PatchSize(rawValue: text.lowercased()) else {
                    throw UsageError(description: "--patch-size takes small or large, not '\(TerminalText.sanitize(text))'")
                }
                options.launchImages = [size]
            case "--pixabay-images":
                do {
                    options.pixabayImages = try ImageVariants.parse(commaSeparated: try list.value(for: argument), as: PixabayVariant.self)
                } catch let error as ImageVariants.Invalid {
                    throw UsageError(description: "--pixabay-images: \(error)")
                }
            case "--launch-images":
                do {
                    options.launchImages = try ImageVariants.parse(
                        commaSeparated: try list.value(for: argument), as: LaunchesQuery.PatchSize.self)
                } catch let error as ImageVariants.Invalid {
                    throw UsageError(description: "--launch-images: \(error)")
                }
            case "--details": options.details = true
            case "--header":
                do {
                    options.headers.append(try FeedHeaders.parse(try list.value(for: argument)))
                } catch let error as FeedHeaders.Invalid {
                    throw UsageError(description: "--header: \(error)")
                }
            case "--launches-page-size": options.launchesPageSize = try list.integer(for: argument, in: 1...100_000)
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
            case "--refresh": options.refreshPages = true
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
            case "--allow-private-addresses": options.allowPrivateAddresses = true
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
                guard try options.ux.parse(argument, value: { try list.value(for: argument) }) else {
                    throw UsageError(description: "unknown option '\(TerminalText.sanitize(argument))'")
                }
            }
        }
        if options.arrayURL == nil,
           options.arrayIDField != nil || options.arrayImageField != nil || options.arrayTitleField != nil {
            throw UsageError(description: "the --array-... field options need --array-url")
        }
        if options.recordDirectory != nil && options.replayDirectory != nil {
            throw UsageError(description: "--record and --replay cannot be combined")
        }
        if options.replayDirectory != nil && options.usesDemoFeed {
            throw UsageError(description: "--replay needs the sources that were recorded (--pixabay-url, --launches-url, --array-url)")
        }
        if options.pixabayURL != nil, options.replayDirectory != nil {
            options.pixabayKey = environment["PIXABAY_KEY"] ?? ""  // not needed: no request goes out
        } else if options.pixabayURL != nil {
            guard let key = environment["PIXABAY_KEY"], !key.isEmpty else {
                throw UsageError(description: "--pixabay-url needs an API key in the PIXABAY_KEY environment variable")
            }
            options.pixabayKey = key
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

    /// The crawl this command line asks for, with the demo feed's URLs when no source is named.
    func crawlConfiguration(demoPixabayURL: String? = nil, demoLaunchesURL: String? = nil) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(outDirectory: outDirectory)
        configuration.concurrency = concurrency
        configuration.perHost = perHost
        configuration.retries = retries
        configuration.ttlSeconds = ttlSeconds
        configuration.maxImageBytes = maxImageBytes
        configuration.caInfo = caFile
        configuration.refreshPages = refreshPages
        configuration.recordDirectory = recordDirectory
        configuration.replayDirectory = replayDirectory
        // The demo's pages name a new port every run: caching them would only fill the disk.
        let demoTTL: Double? = usesDemoFeed ? 0 : nil
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
        if let url = pixabayURL ?? demoPixabayURL {
            var source = PixabaySourceConfiguration(url: url, key: pixabayKey ?? "demo", pages: pages, perPage: perPage)
            source.query = pixabayQuery
            source.variants = pixabayImages
            if let ttl = pageTTLSeconds ?? demoTTL { source.pageTTL = ttl }
            source.headers = headers
            configuration.sources.append(.pixabay(source))
        }
        if let url = launchesURL ?? demoLaunchesURL {
            var source = LaunchesSourceConfiguration(url: url, pages: pages)
            source.variants = launchImages
            source.details = details
            source.pageSize = launchesPageSize
            if let ttl = pageTTLSeconds ?? demoTTL { source.pageTTL = ttl }
            source.headers = headers
            configuration.sources.append(.launches(source))
        }
        if let url = arrayURL {
            var source = ArraySourceConfiguration(
                url: url, idField: arrayIDField ?? "id", imageField: arrayImageField ?? "image_url", pages: pages)
            source.titleField = arrayTitleField
            source.perPage = arrayPerPage
            source.name = arrayName
            if let ttl = pageTTLSeconds { source.pageTTL = ttl }
            source.headers = headers
            configuration.sources.append(.array(source))
        }
        return configuration
    }
}
