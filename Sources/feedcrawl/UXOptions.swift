import FeedCrawlKit

/// The options about output and configuration: progress, logs, `--json`, `--config`.
/// Parsed as part of `CommandLineOptions` (its unknown options come here first).
struct UXOptions: Equatable {
    /// `--progress auto|always|never`.
    enum Progress: String, CaseIterable { case auto, always, never }

    var progress: Progress = .auto
    /// Seconds between progress lines when the live display is off (default 10).
    var progressInterval: Double = 10
    var quiet = false
    var verbose = false
    var logFormat: LogFormat = .text
    var logFile: String?
    var json = false
    var configPath: String?

    /// Handles `argument` (a declared long name) if it is one of these options; `on` is false for
    /// an on/off option given as `--no-NAME`; `value()` consumes the next argument. Returns false
    /// for an option it does not know.
    mutating func parse(_ argument: String, on: Bool = true, value: () throws -> String) throws -> Bool {
        typealias UsageError = CommandLineOptions.UsageError
        switch argument {
        case "--progress":
            let text = try value()
            guard let mode = Progress(rawValue: text) else {
                throw UsageError(description: "--progress takes auto, always or never, not '\(TerminalText.sanitize(text))'")
            }
            progress = mode
        case "--no-progress": progress = .never
        case "--progress-interval":
            let text = try value()
            do {
                progressInterval = max(0.05, try DurationParser.parse(text))
            } catch {
                throw UsageError(description: "--progress-interval: \(error)")
            }
        case "--quiet": quiet = on
        case "--verbose": verbose = on
        case "--log-format":
            let text = try value()
            guard let format = LogFormat(rawValue: text) else {
                throw UsageError(description: "--log-format takes text or json, not '\(TerminalText.sanitize(text))'")
            }
            logFormat = format
        case "--log-file":
            let path = try value()
            guard !path.isEmpty else { throw UsageError(description: "--log-file needs a file name") }
            logFile = path
        case "--json": json = on
        case "--config":
            let path = try value()
            guard !path.isEmpty else { throw UsageError(description: "--config needs a file name") }
            configPath = path
        default:
            return false
        }
        return true
    }
}
