import Dispatch
import Glibc

/// Turns SIGHUP, SIGINT and SIGTERM into a callback: the first asks the crawl to stop cleanly
/// (the manifest is still written); a second exits at once (the journal and the atomic cache
/// writes keep what is on disk consistent). SIGHUP is what a run started by hand gets when its
/// SSH session drops: it stops as cleanly as for the other two, with status 129.
final class SignalWatcher: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "feedcrawl.signals")
    private var received: Int32 = 0

    /// The first signal received, if any.
    var firstSignal: Int32 { queue.sync { received } }

    /// - Parameters:
    ///   - say: writes what the watcher has to say (a line without its newline); default
    ///     straight to stderr. A run with a live display passes its reporter, which erases the
    ///     display first.
    ///   - onFirst: called with the first signal.
    init(say: @escaping @Sendable (String) -> Void = { Console.err($0) }, onFirst: @escaping @Sendable (Int32) -> Void) {
        queue.sync {
            for number in [SIGHUP, SIGINT, SIGTERM] {
                let index = sources.count
                // Its handler runs on `queue`, so not before the source is in `sources`.
                sources.append(Self.watch(number, queue: queue) { [unowned self] in
                    // Signals that arrive before the handler runs are counted together.
                    let count = self.sources[index].data
                    if self.received != 0 || count > 1 {
                        say("feedcrawl: second signal, exiting now")
                        _exit(Self.status(for: self.received != 0 ? self.received : number))
                    }
                    self.received = number
                    say("feedcrawl: \(Self.name(of: number)) received: stopping, writing the manifest (send it again to exit at once)")
                    onFirst(number)
                })
            }
        }
    }

    /// A source that calls `handler` on `queue` each time signal `number` arrives (several
    /// arriving before it runs count as one), until it is cancelled. For signals whose default
    /// is to be ignored, such as SIGWINCH (the terminal's size changed); the main thread must
    /// take it (`unblockOnThisThread`).
    static func watch(_ number: Int32, queue: DispatchQueue, handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }

    /// Unblocks SIGHUP, SIGINT, SIGTERM and SIGWINCH on the calling thread; call it on the main thread
    /// first thing.
    ///
    /// A parent may start us with them blocked (a thread's signal mask survives fork and exec;
    /// test runners and some supervisors do this), and every thread libdispatch starts blocks
    /// them, so unless the main thread, which lives as long as the process, takes them they stay
    /// pending for ever and the watcher never hears of them.
    static func unblockOnThisThread() {
        var signals = set([SIGHUP, SIGINT, SIGTERM, SIGWINCH])
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// The set of the signals `numbers`.
    static func set(_ numbers: [Int32]) -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers { sigaddset(&signals, number) }
        return signals
    }

    /// The exit status of a run stopped by `signal`: 128 plus its number, as a shell reports it.
    static func status(for signal: Int32) -> Int32 {
        switch signal {
        case SIGTERM: ExitStatus.terminated.rawValue
        case SIGHUP: ExitStatus.hungUp.rawValue
        default: ExitStatus.interrupted.rawValue
        }
    }

    /// "SIGHUP", "SIGINT" or "SIGTERM".
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "SIGINT"
        }
    }
}
