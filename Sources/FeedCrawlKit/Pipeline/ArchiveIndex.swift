#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// The cache key of an image URL: the lowercase hex SHA-256 of the text it is cached under (its
/// cache file name, `cache/ab/<hex>.<ext>`), and that hash's first 64 bits for lookups.
struct CacheKey: Sendable, Hashable {
    let hex: String
    let prefix: UInt64

    init(identity: String) {
        self.init(hex: CacheLayout.key(forURL: identity))
    }

    init(hex: String) {
        self.hex = hex
        var value: UInt64 = 0
        for byte in hex.utf8.prefix(16) {
            let digit: UInt8 = byte >= 0x61 ? byte - 0x61 + 10 : byte - 0x30
            value = value << 4 | UInt64(digit & 0xF)
        }
        prefix = value
    }

    /// The key a cache path (`cache/ab/<64 hex>.<ext>`) is named by, or nil for another shape.
    init?(file: String) {
        guard CacheLayout.isValidRelativePath(file) else { return nil }
        let utf8 = Array(file.utf8)
        self.init(hex: String(decoding: utf8[9..<73], as: UTF8.self))
    }
}

/// What earlier runs stored: every image of the previous manifest that has a file in the cache,
/// by its cache key, with where its item's line is in that manifest, so a run reuses (`fresh`),
/// revalidates or keeps an earlier copy without holding the archive in memory: 24 bytes per
/// archived image, and a `pread` of one line when an image is looked up.
final class ArchiveIndex: @unchecked Sendable {
    /// One archived image with a file. Sorted by `key`.
    struct Entry {
        /// The cache key's first 64 bits with the low 2 bits replaced by `source`.
        var key: UInt64
        /// Where its item's line is in the manifest `source`.
        var location: UInt64
        /// `fetchedAt`, whole seconds since 1970 (0 when unknown).
        var fetchedAt: UInt32
        /// Recorded size in bytes (clamped).
        var bytes: UInt32
    }

    private var entries: [Entry]
    /// Open descriptors and paths of the manifests the entries point into.
    private let sources: [(fd: Int32, path: String)]
    private let variants: [ManifestItemV1.Variants]
    /// Per manifest read: whether its items were in manifest order, each key once.
    let inOrder: [String: Bool]

    /// An empty index.
    init() {
        entries = []
        sources = []
        variants = []
        inOrder = [:]
    }

    /// Reads the manifests at `paths` (missing ones are skipped; at most 4) once each.
    init(paths: [String]) throws(ManifestStore.Error) {
        var entries: [Entry] = []
        // Room for one entry per 128 bytes of manifest: more than there can be, so the array
        // never grows by copying (pages never written are never resident).
        var room = 0
        for path in paths.prefix(4) {
            var info = stat()
            if stat(path, &info) == 0 { room += Int(info.st_size) / 128 + 64 }
        }
        entries.reserveCapacity(room)
        var sources: [(fd: Int32, path: String)] = []
        var variants: [ManifestItemV1.Variants] = []
        var inOrder: [String: Bool] = [:]
        for path in paths.prefix(4) {
            guard let reader = try ManifestReader.open(path: path) else { continue }
            let fd: Int32
            do { fd = try FileIO.open(path, O_RDONLY) } catch { throw .io(error) }
            let source = UInt64(sources.count)
            sources.append((fd, path))
            variants.append(reader.variants)
            var last: ItemKey?
            var sorted = reader.header.version >= 2
            while let (item, location) = try reader.next() {
                let key = item.key
                if let previous = last, !(previous < key) { sorted = false }
                last = key
                for image in item.images {
                    guard let file = image.file, let key = CacheKey(file: file) else { continue }
                    let fetched = image.fetchedAt.map { UInt32(clamping: Int64($0.timeIntervalSince1970)) } ?? 0
                    entries.append(Entry(
                        key: key.prefix & ~3 | source, location: location.raw, fetchedAt: fetched,
                        bytes: UInt32(clamping: image.bytes ?? 0)))
                }
            }
            inOrder[path] = sorted
        }
        entries.sort { $0.key < $1.key }
        self.entries = entries
        self.sources = sources
        self.variants = variants
        self.inOrder = inOrder
    }

    deinit {
        for source in sources { close(source.fd) }
    }

    /// Archived images.
    var count: Int { entries.count }

    /// Bytes of the archived files, each file counted once.
    var totalBytes: Int64 {
        var total: Int64 = 0
        var last: UInt64?
        for entry in entries where entry.key >> 2 != last {
            last = entry.key >> 2
            total += Int64(entry.bytes)
        }
        return total
    }

    /// The newest record of the file `key` names, as the archive holds it, with its URL; nil
    /// when the archive has no copy (or its line cannot be read back).
    func record(_ key: CacheKey) -> ImageRecord? {
        // The first entry with this key's 62 bits, then the newest of those.
        let wanted = key.prefix >> 2
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].key >> 2 < wanted { low = mid + 1 } else { high = mid }
        }
        var best: Entry?
        var index = low
        while index < entries.count, entries[index].key >> 2 == wanted {
            if best.map({ entries[index].fetchedAt > $0.fetchedAt }) ?? true { best = entries[index] }
            index += 1
        }
        guard let best else { return nil }
        let source = Int(best.key & 3)
        let location = ItemLocation(raw: best.location)
        let item = try? FileIO.readAt(
            sources[source].fd, offset: location.offset, count: location.length, path: sources[source].path
        ) { bytes in try ItemJSON.decode(bytes, v1: variants[source]) }
        return item?.images.first { $0.file.map { CacheKey(file: $0)?.hex == key.hex } ?? false }
    }
}
