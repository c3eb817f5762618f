import FoundationEssentials
import FeedCrawlSupport

/// Reads and writes whole manifests (`Manifest`), for small manifests and tests; a crawl streams.
public enum ManifestStore {
    /// Why a manifest could not be read or written.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The file exists but is not a manifest this build reads.
        case corrupt(path: String, reason: String)
        /// A file-system call failed.
        case io(FileSystemError)
        /// The manifest could not be encoded.
        case encoding(String)

        public var description: String {
            switch self {
            case .corrupt(let path, let reason): "manifest \(path) is unreadable: \(reason)"
            case .io(let error): "manifest: \(error)"
            case .encoding(let reason): "manifest could not be encoded: \(reason)"
            }
        }
    }

    /// Loads the manifest at `path` (version 1 or 2; version-1 items converted). A missing file
    /// yields `Manifest.empty`; an unreadable or corrupt one throws an error naming the file.
    public static func load(path: String) throws(Error) -> Manifest {
        try ManifestReader.open(path: path)?.manifest() ?? .empty
    }

    /// Decodes a whole manifest from its bytes (version 1 or 2); throws `.corrupt` when they
    /// are not a manifest.
    public static func decode(_ bytes: [UInt8]) throws(Error) -> Manifest {
        try ManifestReader(bytes: bytes).manifest()
    }

    /// The manifest as `save` writes it: version 2, one item per line, items in stable order.
    public static func encode(_ manifest: Manifest) -> [UInt8] {
        var sink = MemorySink()
        try? write(manifest, to: &sink)
        return sink.bytes
    }

    /// Loads `OUT/manifest.json`; see `load(path:)`.
    public static func load(outDirectory: String) throws(Error) -> Manifest {
        try load(path: CacheLayout(outDirectory: outDirectory).manifestPath)
    }

    /// Writes `manifest` to `path` atomically and durably, items in stable order.
    public static func save(_ manifest: Manifest, path: String) throws(Error) {
        do {
            try AtomicFile.stream(to: path) { (out: inout AtomicFileStream) throws(FileSystemError) in
                try write(manifest, to: &out)
            }
        } catch {
            throw .io(error)
        }
    }

    private static func write(_ manifest: Manifest, to out: inout some ByteSink) throws(FileSystemError) {
        var writer = ManifestWriter(generatedAt: manifest.generatedAt)
        for item in manifest.sortedItems { try writer.append(item, to: &out) }
        try writer.finish(run: manifest.run, to: &out)
    }

    /// Writes `manifest` to `OUT/manifest.json`; see `save(_:path:)`.
    public static func save(_ manifest: Manifest, outDirectory: String) throws(Error) {
        try save(manifest, path: CacheLayout(outDirectory: outDirectory).manifestPath)
    }
}
