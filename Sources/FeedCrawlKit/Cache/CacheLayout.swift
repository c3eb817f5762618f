import FeedCrawlSupport

/// Where things live under the output directory `OUT`:
///
/// ```
/// OUT/manifest.json                  the manifest (ManifestStore)
/// OUT/manifest.journal               outcomes of the current run, one JSON line each (Journal)
/// OUT/.lock                          held by the running process (RunLock)
/// OUT/cache/ab/<sha256 of URL>.jpg   cached images; "ab" = first two hex digits of the hash
/// OUT/shards/N/K/                    shard K of N's own manifest part, journal and lock
/// ```
///
/// Cache file names are derived only from the SHA-256 of the image URL string, never from URL
/// text, so no feed data can steer a path. Paths are plain strings joined with `/`.
public struct CacheLayout: Sendable, Hashable {
    /// Name of the cache directory inside OUT (`cache`).
    public static let cacheDirectoryName = "cache"
    /// Name of the manifest file inside OUT (`manifest.json`).
    public static let manifestFileName = "manifest.json"
    /// Name of the journal file inside OUT (`manifest.journal`).
    public static let journalFileName = "manifest.journal"
    /// Name of the lock file inside OUT (`.lock`).
    public static let lockFileName = ".lock"

    /// The output directory, as given.
    public let outDirectory: String
    /// Where the run's manifest, journal and lock are: OUT itself, or a shard's folder.
    public let stateDirectory: String
    /// The shard whose part this layout writes, if any.
    public let shard: Shard?

    /// A layout rooted at `outDirectory` (relative or absolute; a trailing `/` is ignored); with
    /// `shard`, the manifest, journal and lock are the shard's (`OUT/shards/N/K/`).
    public init(outDirectory: String, shard: Shard? = nil) {
        var dir = outDirectory
        while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
        self.outDirectory = dir.isEmpty ? "." : dir
        self.shard = shard
        let out = self.outDirectory
        stateDirectory = shard.map { (out == "/" ? "" : out) + "/" + $0.directory } ?? out
    }

    /// `OUT/cache`.
    public var cacheDirectory: String { absolutePath(Self.cacheDirectoryName) }
    /// `OUT/manifest.json`, or the shard's part (`OUT/shards/N/K/manifest.json`).
    public var manifestPath: String { statePath(Self.manifestFileName) }
    /// `OUT/manifest.journal`, or the shard's.
    public var journalPath: String { statePath(Self.journalFileName) }
    /// `OUT/.lock`, or the shard's.
    public var lockPath: String { statePath(Self.lockFileName) }

    /// A file in the state directory.
    public func statePath(_ name: String) -> String {
        stateDirectory == "/" ? "/" + name : stateDirectory + "/" + name
    }

    /// `OUT/<relative>`.
    public func absolutePath(_ relative: String) -> String {
        outDirectory == "/" ? "/" + relative : outDirectory + "/" + relative
    }

    /// The cache key of a URL: lowercase hex SHA-256 of its exact string (64 characters).
    public static func key(forURL url: String) -> String {
        SHA256.hex(url)
    }

    /// Path relative to OUT of the cache entry for `url`:
    /// `"cache/<first two hex digits>/<64-hex sha256 of url>.<ext>"`.
    public static func relativePath(forURL url: String, format: ImageFormat) -> String {
        relativePath(forKey: key(forURL: url), format: format)
    }

    /// Path relative to OUT of the cache entry with the given 64-hex `key`.
    public static func relativePath(forKey key: String, format: ImageFormat) -> String {
        entryPath(in: cacheDirectoryName, key: key, ending: format.fileExtension)
    }

    /// `<cache>/<first two hex digits of key>/<key>.<ending><suffix>`, built as one string (these
    /// paths are made for every download).
    static func entryPath(in cache: String, key: String, ending: String, suffix: String = "") -> String {
        var path = ""
        path.reserveCapacity(cache.utf8.count + key.utf8.count + ending.utf8.count + suffix.utf8.count + 6)
        path += cache
        path += "/"
        path += key.prefix(2)
        path += "/"
        path += key
        path += "."
        path += ending
        path += suffix
        return path
    }

    /// Whether a file name is a temporary (`.part`) file: a partial name of the cache store
    /// (`LocalCacheStore.partialName`), e.g. left by an interrupted run.
    public static func isTemporary(_ name: String) -> Bool {
        AtomicFile.isTemporary(name)
    }

    /// Whether `relative` is exactly the shape this layout produces
    /// (`cache/ab/<64 hex starting with ab>.<ext>`). Use it before trusting a `file` value read
    /// back from disk, so a tampered manifest cannot point outside the cache.
    public static func isValidRelativePath(_ relative: String) -> Bool {
        // Byte by byte (it runs for every cached item of every run):
        // "cache/" ab "/" <64 hex, starting with ab> "." <extension of an ImageFormat>
        var relative = relative
        return relative.withUTF8 { b in
            let head: StaticString = "cache/"
            guard cacheDirectoryName == "cache", b.count > 74, b[8] == 0x2F, b[73] == 0x2E else { return false }
            for i in 0..<6 where b[i] != head.utf8Start[i] { return false }
            for i in 9..<73 where !isLowerHex(b[i]) { return false }
            guard b[6] == b[9], b[7] == b[10] else { return false }
            for i in 74..<b.count where b[i] == 0x2F || b[i] == 0x2E { return false }
            let ext = String(decoding: UnsafeBufferPointer(rebasing: b[74...]), as: UTF8.self)
            guard let format = ImageFormat(fileExtension: ext) else { return false }
            return format.fileExtension == ext
        }
    }

    private static func isLowerHex(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x61...0x66).contains(c)
    }
}
