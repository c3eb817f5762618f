import DemoFeed
import FeedCrawlKit
import Glibc

/// `feedcrawl demo-feed [options]`: serves the built-in demo feed on 127.0.0.1 in the
/// foreground until SIGINT or SIGTERM, for trying sharded or cluster setups without an API key
/// and for giving several crawls one feed to share.
enum DemoFeedCommand {
    /// What the command line asked for.
    struct Options {
        /// `--port`: the port to listen on; 0 (default) lets the OS choose.
        var port: UInt16 = 0
        /// The feed's options. `--hits N` sets both `hits` and `hitsCap`, so N hits are served.
        var feed = DemoFeedOptions()
        var help = false
    }

    /// Parses the options after `demo-feed`; throws `UsageError` naming the bad option.
    static func parse(_ given: [String]) throws -> Options {
        var options = Options()
        var rateWindowGiven = false
        var list = ArgumentList(given, command: .demoFeed)
        while let argument = try list.next() {
            switch argument {
            case "--help": options.help = true
            case "--port": options.port = UInt16(try list.integer(for: argument, in: 0...65_535))
            case "--hits":
                options.feed.hits = try list.integer(for: argument, in: 0...1_000_000)
                options.feed.hitsCap = options.feed.hits
            case "--launches": options.feed.launches = try list.integer(for: argument, in: 0...100_000)
            case "--latency-ms": options.feed.latencyMs = try list.integer(for: argument, in: 0...60_000)
            case "--seed":
                let text = try list.value(for: argument)
                guard let seed = UInt64(text) else {
                    throw usage("--seed takes a whole number from 0 to \(UInt64.max), not '\(TerminalText.sanitize(text))'")
                }
                options.feed.seed = seed
            case "--rate-limit": options.feed.rateLimit = try list.integer(for: argument, in: 1...1_000_000)
            case "--rate-window":
                let text = try list.value(for: argument)
                guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                    throw usage("--rate-window takes seconds, more than 0 and at most 86400, not '\(TerminalText.sanitize(text))'")
                }
                options.feed.rateWindowSeconds = seconds
                rateWindowGiven = true
            case "--image-bytes": options.feed.imageBytes = try list.integer(for: argument, in: 1...10_000_000)
            default:
                throw CommandSpec.demoFeed.unknownOption(argument)
            }
        }
        if rateWindowGiven && options.feed.rateLimit == nil {
            throw usage("--rate-window needs --rate-limit")
        }
        return options
    }

    private static func usage(_ message: String) -> CommandLineOptions.UsageError {
        CommandLineOptions.UsageError(description: message)
    }

    /// Parses, serves until SIGINT or SIGTERM and exits: 0 when stopped by a signal, 1 when the
    /// feed cannot start (the port is in use, say), 2 on a usage error.
    static func run(_ arguments: [String]) -> Never {
        let options = Console.orUsageError(help: "feedcrawl demo-feed") { try parse(arguments) }
        if options.help {
            Console.out(HelpText.demoFeed)
            exit(0)
        }
        // Blocked before the server starts its threads, which inherit the mask: the signals
        // then stay pending until sigwait below takes them, whichever thread they were sent to,
        // and also when the parent started us with them ignored (as `cmd &` in a script does).
        var stopSignals = SignalWatcher.set([SIGINT, SIGTERM])
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)

        let server: DemoFeedServer
        do {
            server = try DemoFeedServer(options: options.feed, port: options.port)
        } catch {
            Console.err("feedcrawl: error: cannot start the demo feed: \(error)")
            exit(ExitStatus.itemsFailed.rawValue)
        }
        // One unbuffered write(2): a script reading the first line sees it at once.
        Console.out("demo feed listening on \(server.baseURL)")

        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        server.stop()
        let name = received == SIGTERM ? "SIGTERM" : "SIGINT"
        Console.err("feedcrawl: demo feed: \(name) received, stopped after \(server.requestCount) requests")
        exit(ExitStatus.success.rawValue)
    }
}
