import DemoFeed
import FeedCrawlKit
import Glibc

/// `feedcrawl demo-feed [options]`: serves the built-in demo feed on 127.0.0.1 in the
/// foreground until SIGINT or SIGTERM, for trying sharded or cluster setups without an API key
/// and for giving several crawls one feed to share.
enum DemoFeedCommand {
    /// What the command line asked for; each option's declaration (`CommandSpec.demoFeed`) says
    /// where its value goes.
    struct Options {
        /// `--port`: the port to listen on; 0 (default) lets the OS choose.
        var port = 0
        /// The feed's options. `--hits N` sets both `hits` and `hitsCap`, so N hits are served.
        var feed = DemoFeedOptions()
        /// Whether `--rate-window` was given (default false): it needs `--rate-limit`.
        var rateWindowGiven = false
        var help = false
    }

    /// Parses the options after `demo-feed`; throws `UsageError` naming the bad option.
    static func parse(_ given: [String]) throws -> Options {
        let options = try ArgumentList.read(given, command: .demoFeed, into: Options())
        if options.rateWindowGiven && options.feed.rateLimit == nil {
            throw CommandLineOptions.UsageError(description: "--rate-window needs --rate-limit")
        }
        return options
    }

    /// Parses, serves until SIGINT or SIGTERM and exits: 0 when stopped by a signal, 1 when the
    /// feed cannot start (the port is in use, say), 2 on a usage error.
    static func run(_ arguments: [String]) -> Never {
        let options = Console.orUsageError(help: "feedcrawl demo-feed") { try parse(arguments) }
        if options.help {
            HelpText.show(HelpText.demoFeed)
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
            server = try DemoFeedServer(options: options.feed, port: UInt16(options.port))
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
