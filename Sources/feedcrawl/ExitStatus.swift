/// feedcrawl's exit statuses; where several apply, the highest wins.
enum ExitStatus: Int32 {
    /// Every item is fine (`no-image` is fine).
    case success = 0
    /// The run finished but some items failed, were rejected or were cancelled.
    case itemsFailed = 1
    /// Usage or configuration error; nothing was fetched.
    case usage = 2
    /// A source could not be crawled at all (bad key, unreachable, invalid responses).
    case sourceFailed = 3
    /// `manifest.json` is damaged (cannot be parsed); nothing was changed. The message names the
    /// file, what was lost and how to recover (sysexits' `EX_DATAERR`).
    case damagedManifest = 65
    /// Another run holds the output folder's lock; nothing was changed.
    case locked = 75
    /// Interrupted by SIGINT.
    case interrupted = 130
    /// Terminated by SIGTERM.
    case terminated = 143
}
