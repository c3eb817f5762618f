import FeedCrawlKit
import Glibc
import FeedCrawlSupport

/// Writes lines to the standard streams without C's global `FILE*` variables.
enum Console {
    static func out(_ text: String) { ConsoleWriter.write(fd: 1, text + "\n") }
    /// Writes a line to stderr, with the locale's glyphs (`ConsoleWriter.processGlyphs`).
    static func err(_ text: String) { ConsoleWriter.write(fd: 2, ConsoleWriter.processGlyphs.applied(to: text) + "\n") }
    /// Writes `text` to stdout as is (no newline added).
    static func write(_ text: String) { ConsoleWriter.write(fd: 1, text) }

    /// Prints `feedcrawl: error: MESSAGE` and which help to read (`COMMAND --help`, e.g.
    /// `feedcrawl manifest`; nil: none), and with `json` (default false) the failure as a JSON
    /// line on stdout, then exits with status 2, a usage error.
    static func usageError(_ message: String, help command: String?, json: Bool = false) -> Never {
        err("feedcrawl: error: \(message)" + (command.map { "\nRun '\($0) --help' for usage." } ?? ""))
        if json { out(RunSummary.failureLine(exitStatus: ExitStatus.usage.rawValue, message: message)) }
        exit(ExitStatus.usage.rawValue)
    }

    /// Prints `feedcrawl: error: MESSAGE` (made safe for a terminal), and with `json` the
    /// failure as a JSON line on stdout, then exits with `status`.
    static func fail(_ message: String, status: ExitStatus, json: Bool) -> Never {
        err("feedcrawl: error: \(TerminalText.sanitize(message))")
        if json { out(RunSummary.failureLine(exitStatus: status.rawValue, message: message)) }
        exit(status.rawValue)
    }

    /// What `make` returns; when it throws, its error as a usage error of `command`.
    static func orUsageError<T>(help command: String, _ make: () throws -> T) -> T {
        do { return try make() } catch { usageError("\(error)", help: command) }
    }
}
