import Glibc

/// Writes lines to the standard streams without C's global `FILE*` variables.
enum Console {
    static func out(_ text: String) { ConsoleWriter.write(fd: 1, text + "\n") }
    /// Writes a line to stderr, with the locale's glyphs (`ConsoleWriter.processGlyphs`).
    static func err(_ text: String) { ConsoleWriter.write(fd: 2, ConsoleWriter.processGlyphs.applied(to: text) + "\n") }
    /// Writes `text` to stdout as is (no newline added).
    static func write(_ text: String) { ConsoleWriter.write(fd: 1, text) }

    /// Prints `feedcrawl: error: MESSAGE` and which help to read (`COMMAND --help`, e.g.
    /// `feedcrawl manifest`), then exits with status 2, a usage error.
    static func usageError(_ message: String, help command: String) -> Never {
        err("feedcrawl: error: \(message)\nRun '\(command) --help' for usage.")
        exit(ExitStatus.usage.rawValue)
    }

    /// What `make` returns; when it throws, its error as a usage error of `command`.
    static func orUsageError<T>(help command: String, _ make: () throws -> T) -> T {
        do { return try make() } catch { usageError("\(error)", help: command) }
    }
}
