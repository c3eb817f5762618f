import FeedCrawlKit

/// What goes where, decided once from the options and whether stderr is a terminal.
///
/// - Live display (pages per source, images, bytes, rate, elapsed, redrawn in place): stderr is
///   a terminal and `--progress auto` (unless JSON logs go to stderr), or `--progress always`;
///   never with `--quiet`.
/// - Periodic progress records (every `--progress-interval`): when there is no live display,
///   or there is a log file; never with `--progress never`.
/// - Log records go to `--log-file` (appended) or to stderr, at `info` and up (`debug` with
///   `--verbose`). With a log file, stderr still gets warnings, errors and the summary as text.
/// - `--quiet`: nothing on stderr unless the run fails; then its warnings, errors and the summary.
@dynamicMemberLookup
struct OutputPlan: Equatable {
    /// The options it was decided from; their values read as the plan's own (`plan.quiet`).
    var ux: UXOptions
    var live: Bool
    var progressRecords: Bool
    var threshold: LogLevel

    subscript<T>(dynamicMember key: KeyPath<UXOptions, T>) -> T { ux[keyPath: key] }

    init(_ ux: UXOptions, stderrIsTerminal: Bool) {
        self.ux = ux
        let jsonOnStderr = ux.logFormat == .json && ux.logFile == nil
        switch ux.progress {
        case .always: live = !ux.quiet
        case .auto: live = !ux.quiet && stderrIsTerminal && !jsonOnStderr
        case .never: live = false
        }
        progressRecords = ux.progress != .never && (!live || ux.logFile != nil)
        threshold = ux.verbose ? .debug : .info
    }
}
