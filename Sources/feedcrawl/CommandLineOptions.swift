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
    var pixabayURL: String?
    var launchesURL: String?
    var concurrency = 16
    var perHost = 8
    var retries = 3
    var ttlSeconds: Double = 24 * 3600
    var maxImageBytes: Int64 = 20 << 20
    var caFile: String?
    /// `--deadline`: seconds after which the run stops scheduling and cancels what is in flight.
    var deadlineSeconds: Double?
    /// `--cache-max`: cache size cap in bytes; default 2 GiB.
    var cacheMaxBytes: Int64 = 2 << 30
    /// The Pixabay key, from PIXABAY_KEY; never printed.
    var pixabayKey: String?

    /// Whether no source was named, so the built-in demo feed is crawled.
    var usesDemoFeed: Bool { pixabayURL == nil && launchesURL == nil }

    static func parse(_ arguments: [String], environment: [String: String]) throws -> CommandLineOptions {
        var options = CommandLineOptions()
        var index = 0
        func value(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[index]
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(name)
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(description: "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
        func url(_ name: String) throws -> String {
            let text = try value(name)
            let lower = text.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.count > 8 else {
                throw UsageError(description: "\(name) takes an http:// or https:// URL, not '\(text)'")
            }
            return text
        }
        while index < arguments.count {
            var argument = arguments[index]
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                var split = arguments
                split[index] = String(argument[..<equals])
                split.insert(String(argument[argument.index(after: equals)...]), at: index + 1)
                return try parse(split, environment: environment)
            }
            if argument == "-h" { argument = "--help" }
            switch argument {
            case "--help": options.action = .help
            case "--version": options.action = .version
            case "--pages": options.pages = try integer(argument, 0...100_000)
            case "--per-page": options.perPage = try integer(argument, 3...200)
            case "--out":
                options.outDirectory = try value(argument)
                guard !options.outDirectory.isEmpty else { throw UsageError(description: "--out needs a folder") }
            case "--pixabay-url": options.pixabayURL = try url(argument)
            case "--launches-url": options.launchesURL = try url(argument)
            case "--concurrency": options.concurrency = try integer(argument, 1...1024)
            case "--per-host": options.perHost = try integer(argument, 1...1024)
            case "--retries": options.retries = try integer(argument, 0...20)
            case "--ttl":
                let text = try value(argument)
                do {
                    options.ttlSeconds = Double(try DurationParser.parse(text))
                } catch {
                    throw UsageError(description: "--ttl: \(error)")
                }
            case "--max-image-bytes":
                let text = try value(argument)
                do {
                    options.maxImageBytes = try ByteSize.parse(text)
                } catch {
                    throw UsageError(description: "--max-image-bytes: \(error)")
                }
            case "--cacert": options.caFile = try value(argument)
            case "--deadline":
                let text = try value(argument)
                do {
                    options.deadlineSeconds = Double(try DurationParser.parse(text))
                } catch {
                    throw UsageError(description: "--deadline: \(error)")
                }
            case "--cache-max":
                let text = try value(argument)
                do {
                    options.cacheMaxBytes = try ByteSize.parse(text)
                } catch {
                    throw UsageError(description: "--cache-max: \(error)")
                }
            default:
                throw UsageError(description: "unknown option '\(argument)'")
            }
            index += 1
        }
        if options.pixabayURL != nil {
            guard let key = environment["PIXABAY_KEY"], !key.isEmpty else {
                throw UsageError(description: "--pixabay-url needs an API key in the PIXABAY_KEY environment variable")
            }
            options.pixabayKey = key
        }
        return options
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
        configuration.deadlineSeconds = deadlineSeconds
        configuration.cacheMaxBytes = cacheMaxBytes
        if let url = pixabayURL ?? demoPixabayURL {
            configuration.sources.append(.pixabay(PixabaySourceConfiguration(
                url: url, key: pixabayKey ?? "demo", pages: pages, perPage: perPage)))
        }
        if let url = launchesURL ?? demoLaunchesURL {
            configuration.sources.append(.launches(LaunchesSourceConfiguration(url: url, pages: pages)))
        }
        return configuration
    }
}
