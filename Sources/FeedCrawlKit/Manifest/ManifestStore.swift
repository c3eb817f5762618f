import FoundationEssentials

/// Reads and writes `OUT/manifest.json`.
public enum ManifestStore {
    /// Why the manifest could not be read or written.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The file exists but is not a valid version-1 manifest.
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

    /// Largest manifest accepted when loading (256 MiB).
    public static let maxBytes = 256 << 20

    /// Loads the manifest of `outDirectory`. A missing file yields `Manifest.empty`; an
    /// unreadable or corrupt one throws an error naming the file.
    public static func load(outDirectory: String) throws(Error) -> Manifest {
        try load(path: CacheLayout(outDirectory: outDirectory).manifestPath)
    }

    /// Loads a manifest from `path`; see `load(outDirectory:)`.
    public static func load(path: String) throws(Error) -> Manifest {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, maxBytes: maxBytes)
        } catch {
            if error.isNotFound { return .empty }
            if error.isTooLarge { throw .corrupt(path: path, reason: "larger than \(ByteSize.format(Int64(maxBytes)))") }
            throw .io(error)
        }
        do {
            return try decode(bytes)
        } catch {
            throw .corrupt(path: path, reason: ManifestCoding.describe(error))
        }
    }

    /// Writes `manifest` to `OUT/manifest.json` atomically and durably (see `AtomicFile`).
    public static func save(_ manifest: Manifest, outDirectory: String) throws(Error) {
        try save(manifest, path: CacheLayout(outDirectory: outDirectory).manifestPath)
    }

    /// Writes `manifest` to `path` atomically and durably.
    public static func save(_ manifest: Manifest, path: String) throws(Error) {
        // The same bytes as `encode`, streamed item by item (see `ManifestWriter`).
        try ManifestWriter.save(manifest, sortedItems: manifest.sortedItems, path: path)
    }

    /// The manifest as written to disk: pretty-printed JSON, sorted keys, stable item order,
    /// ending with a newline.
    public static func encode(_ manifest: Manifest) throws -> Data {
        var data = try ManifestCoding.prettyEncoder().encode(manifest)
        data.append(0x0A)
        return data
    }

    /// Decodes a manifest (unknown keys ignored).
    public static func decode(_ bytes: [UInt8]) throws -> Manifest {
        // The items of a manifest in the usual form take a direct scanner (ManifestFastDecoder);
        // anything else, and every error, goes through JSONDecoder.
        if let manifest = ManifestFastDecoder.decode(bytes) { return manifest }
        return try ManifestCoding.decoder().decode(Manifest.self, from: Data(bytes))
    }
}
