import FoundationEssentials
import Glibc
import FeedCrawlSupport

/// A folder of `FeedExchange` files, one sub-folder per source: `<root>/<source>/<hash>.json`.
/// Used for the page cache (`OUT/pages`) and for recordings (`--record DIR`, `--replay DIR`).
/// Files are written atomically (temporary file, rename); a file that cannot be read back is
/// treated as absent.
public struct FeedExchangeStore: Sendable {
    /// The folder holding one sub-folder per source.
    public let root: String
    /// Largest file read back; default 64 MiB.
    public var maxFileBytes: Int

    /// The largest file that may hold a page of `pageBytes` (`--max-page-bytes`): 6 times it
    /// (a body kept as JSON text, every byte escaped at worst) and 64 KiB for the rest, at
    /// least 64 MiB.
    public static func maxFileBytes(pageBytes: Int64) -> Int {
        let (times6, overflow) = Int(clamping: pageBytes).multipliedReportingOverflow(by: 6)
        guard !overflow, times6 <= .max - (64 << 10) else { return .max }
        return max(64 << 20, times6 + (64 << 10))
    }

    public init(root: String, maxFileBytes: Int = 64 << 20) {
        var root = root
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.maxFileBytes = maxFileBytes
    }

    /// `<root>/<source>`.
    public func directory(source: String) -> String { root + "/" + source }

    /// `<root>/<source>/<hash>.json`.
    public func path(source: String, request: FeedRequestIdentity) -> String {
        directory(source: source) + "/" + request.hash + ".json"
    }

    /// The stored exchange for `request`, or nil when there is none (or it is unreadable, or it
    /// was stored for another request).
    public func load(source: String, request: FeedRequestIdentity) -> FeedExchange? {
        guard let bytes = try? FileIO.read(path(source: source, request: request), maxBytes: maxFileBytes),
              let exchange = try? FeedExchange.decode(bytes),
              exchange.request == request else { return nil }
        return exchange
    }

    /// Writes `exchange` atomically (not fsynced: a lost file is fetched again).
    public func save(_ exchange: FeedExchange) throws {
        let folder = directory(source: exchange.source)
        try AtomicFile.createDirectories(folder)
        try AtomicFile.write(try exchange.encoded(), to: path(source: exchange.source, request: exchange.request),
                             durable: false)
    }

    /// Removes `<root>/<source>/*.json` files last written more than `seconds` ago (all of them
    /// when `seconds <= 0`), and temporary files. Returns how many were removed.
    @discardableResult
    public func prune(source: String, olderThan seconds: Double, now: Date = Date()) -> Int {
        let folder = directory(source: source)
        guard let dir = opendir(folder) else { return 0 }
        defer { closedir(dir) }
        let limit = now.timeIntervalSince1970 - max(seconds, 0)
        var removed = 0
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            let path = folder + "/" + name
            if AtomicFile.isTemporary(name) {
                if unlink(path) == 0 { removed += 1 }
                continue
            }
            guard name.hasSuffix(".json") else { continue }
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let written = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if seconds <= 0 || written < limit, unlink(path) == 0 { removed += 1 }
        }
        return removed
    }
}
