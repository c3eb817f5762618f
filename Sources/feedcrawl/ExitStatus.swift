/// feedcrawl's exit statuses; where several apply, the highest wins. `meaning` is the one text
/// of each: README's table, `--help` and the man page are generated from it (a test holds the
/// README to it).
enum ExitStatus: Int32, CaseIterable {
    /// Every item is fine (`no-image` is fine).
    case success = 0
    /// The run finished but some items failed, were rejected or were cancelled; or what it was
    /// told to write or reach (OUT, the store, the log file) could not be used.
    case itemsFailed = 1
    /// Usage or configuration error; nothing was fetched.
    case usage = 2
    /// A source could not be crawled at all (bad key, unreachable, invalid responses).
    case sourceFailed = 3
    /// `manifest.json` (the archive's root) is damaged, with no copy to fall back on and nothing
    /// to rebuild it from; nothing was changed. The message names the file, what was lost and how
    /// to recover (sysexits' `EX_DATAERR`).
    case damagedManifest = 65
    /// Another run holds the output folder's lock; nothing was changed.
    case locked = 75
    /// Stopped by SIGHUP (the terminal or SSH session of a run started by hand went away).
    case hungUp = 129
    /// Interrupted by SIGINT.
    case interrupted = 130
    /// Terminated by SIGTERM.
    case terminated = 143

    /// The statuses as tables list them: 129, 130 and 143 share a row.
    static let rows: [(codes: String, meaning: String)] = allCases.compactMap { status in
        switch status {
        case .terminated, .hungUp: nil
        case .interrupted:
            ("129 / 130 / 143", "stopped by SIGHUP / SIGINT / SIGTERM: the run stopped scheduling, cancelled what was under "
                + "way and wrote the manifest; running the same command again finishes the job")
        default: ("\(status.rawValue)", status.meaning)
        }
    }

    /// What the status means (Markdown: code in backticks, which `--help` drops).
    var meaning: String {
        switch self {
        case .success: "every item is fine (`no-image` is fine)"
        case .itemsFailed:
            "the run finished, but some items failed, were rejected or were cancelled, a feed page could not be "
                + "read, launch details asked for (`--details`) are missing, or a file asked for (`--log-file`, `--metrics-file`, the contact sheet) could not be opened or "
                + "written, or `--metrics-push` could not push; or the run could not use OUT at all: a folder it cannot "
                + "lock, read or write, an object store that cannot be reached, refuses the credentials "
                + "(`SignatureDoesNotMatch`) or has no such bucket; that failure is printed even with `--quiet`"
        case .usage: "usage or configuration error (a misspelt option, a bad value, a configuration file that is not valid); nothing was fetched"
        case .sourceFailed: "a source could not be crawled at all (bad key, unreachable, invalid responses)"
        case .damagedManifest:
            "`OUT/manifest.json` (the archive's root) is damaged, and the archive holds no whole copy of it "
                + "(`OUT/archive/roots/`) and no segment to rebuild it from; nothing was changed. The message names the "
                + "file and how to recover: move it aside (`mv OUT/manifest.json OUT/manifest.json.damaged`) and run "
                + "again. (A damaged or lost root with a copy or segments is not an error: the run says it fell back "
                + "and goes on, downloading nothing again)"
        case .locked:
            "another run holds the output folder's lock; nothing was changed. The message gives that run's pid "
                + "(recorded in `OUT/.lock` while it runs)"
        case .hungUp: "stopped by SIGHUP"
        case .interrupted: "interrupted by SIGINT"
        case .terminated: "terminated by SIGTERM"
        }
    }
}
