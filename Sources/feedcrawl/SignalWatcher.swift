import Dispatch
import Glibc

/// Turns SIGINT and SIGTERM into a callback: the first asks the crawl to stop cleanly (the
/// manifest is still written); a second exits at once (the journal and the atomic cache
/// writes keep what is on disk consistent).
final class SignalWatcher: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "feedcrawl.signals")
    private var received: Int32 = 0

    /// The first signal received, if any.
    var firstSignal: Int32 { queue.sync { received } }

    init(onFirst: @escaping @Sendable (Int32) -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [unowned self] in
                if self.received != 0 {
                    Console.err("feedcrawl: second signal, exiting now")
                    _exit(Self.status(for: self.received))
                }
                self.received = number
                onFirst(number)
            }
            source.resume()
            sources.append(source)
        }
    }

    static func status(for signal: Int32) -> Int32 {
        signal == SIGTERM ? ExitStatus.terminated.rawValue : ExitStatus.interrupted.rawValue
    }
}
