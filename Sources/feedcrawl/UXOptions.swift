import FeedCrawlKit

/// The options about output and configuration: progress, logs, `--json`, `--config`.
/// Parsed as part of `CommandLineOptions` (their `Binding`s write here).
struct UXOptions {
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
}
