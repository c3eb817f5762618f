import FoundationEssentials
import Glibc
import FeedCrawlSupport

extension Crawler {
    /// The staging folder's spool of images in flight (`spool`).
    static let spoolFolder = "spool"

    /// Empties the staging folder but for the feed page cache (`pages/`), creating it if needed
    /// (mode 0700: it holds the manifest's copy).
    static func clearStaging(_ path: String) throws {
        try AtomicFile.createDirectories(path, permissions: 0o700)
        for name in try names(in: path) where name != FeedStores.pagesDirectoryName { try removeTree(path + "/" + name) }
    }

    /// Removes `path` and, for a folder, everything in it (symbolic links are not followed).
    static func removeTree(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try names(in: path) { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path, code: errno) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path, code: errno) }
        }
    }

    /// The names in the folder `path` but `.` and `..`, all read before any is removed.
    private static func names(in path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw FileSystemError("open", path: path, code: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// What a lease object says of its holder: `host NAME pid N started ISO-8601`.
    static func leaseHolder() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown"
        return "host \(host) pid \(getpid()) started \(Date().formatted(Date.ISO8601FormatStyle()))"
    }

    /// The message of a run refused because the lease at `path` is held by `holder` (what the
    /// lease object says).
    static func heldMessage(_ path: String, holder: String, ttl: Double) -> String {
        let text = String(holder.prefix(300))
        let who = text.isEmpty ? "another feedcrawl run" : "another feedcrawl run (\(TerminalText.sanitize(text)))"
        return "\(path) is held by \(who); nothing was changed. Run again when it has finished; "
            + "a run that was killed stops holding it \(Int(ttl)) s after its last renewal"
    }
}
