import FeedCrawlSupport
import FoundationEssentials

/// One entry of an index: a 64-bit key (the first 8 bytes of a SHA-256) and where its record is
/// (a group, an item's position in it, and for the file index the image's), with, for the file
/// index, the file's size and when it was fetched (what totals and eviction need without reading
/// records). 24 bytes.
struct IndexEntry: Sendable, Equatable {
    var key: UInt64
    var group: UInt32
    /// The item's position in its group in the low 22 bits, the image's index in the next 6, and
    /// for the file index the file's extension in the top 4 (`extensionCode`).
    var slot: UInt32
    /// The file's bytes (clamped; 0 in the item index).
    var bytes: UInt32 = 0
    /// When the file was fetched, seconds since 1970 (0: unknown; 0 in the item index).
    var fetched: UInt32 = 0

    init(key: UInt64, group: UInt32, item: Int, image: Int = 0, file: String? = nil, bytes: Int64 = 0, fetched: Date? = nil) {
        self.key = key
        self.group = group
        slot = UInt32(truncatingIfNeeded: item) & Self.itemMask | (UInt32(truncatingIfNeeded: image) & 0x3F) << 22
            | UInt32(file.map(Self.extensionCode) ?? 0) << 28
        self.bytes = UInt32(clamping: bytes)
        self.fetched = fetched.map { UInt32(clamping: Int64($0.timeIntervalSince1970)) } ?? 0
    }

    init(key: UInt64, group: UInt32, slot: UInt32, bytes: UInt32, fetched: UInt32) {
        self.key = key
        self.group = group
        self.slot = slot
        self.bytes = bytes
        self.fetched = fetched
    }

    static let itemMask: UInt32 = (1 << 22) - 1

    var item: Int { Int(slot & Self.itemMask) }
    var image: Int { Int((slot >> 22) & 0x3F) }

    /// The extensions a file name may end in, coded 1 to 4 (0: unknown).
    static let extensions = ["jpg", "png", "gif", "webp"]

    static func extensionCode(_ file: String) -> Int {
        guard let dot = file.lastIndex(of: ".") else { return 0 }
        return (extensions.firstIndex(of: String(file[file.index(after: dot)...])) ?? -1) + 1
    }

    /// For the file index: the extension of the file its record names, or nil when unknown.
    var fileExtension: String? {
        let code = Int(slot >> 28)
        return code > 0 && code <= Self.extensions.count ? Self.extensions[code - 1] : nil
    }

    /// Orders by key, then newest group first, then the later place in a group first (the entry
    /// that wins comes first: a group that lists an item twice keeps its later copy).
    static func precedes(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        a.key != b.key ? a.key < b.key : a.group != b.group ? a.group > b.group : a.slot > b.slot
    }
}

/// The key an index files an item under: the first 64 bits of the SHA-256 of `source`, a zero
/// byte and `id`. (Two items would have to share 64 bits of a SHA-256 to be confused; a lookup
/// reads the record and checks its source and id, so such a pair reads as not found.)
func itemIndexKey(source: String, id: String) -> UInt64 {
    var hasher = SHA256()
    hasher.update(Array(source.utf8))
    hasher.update([0])
    hasher.update(Array(id.utf8))
    let digest = hasher.finalize()
    return digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
}

/// A sorted run of `IndexEntry`s, saved as one immutable file (`archive/tables/<sha256>.items`
/// or `.files`): a 16-byte header (`FCIX`, format 1, the kind, the count), then the entries
/// (24 bytes each), sorted by key and newest group first, little-endian.
enum IndexTable {
    static let magic: [UInt8] = Array("FCIX".utf8)
    static let headerBytes = 16
    static let entryBytes = 24

    /// Which index a table belongs to.
    enum Kind: UInt8, Sendable {
        case items = 1
        case files = 2

        var fileExtension: String { self == .items ? "items" : "files" }
    }

    /// The file's bytes for `entries` (sorted here).
    static func encode(_ entries: [IndexEntry], kind: Kind) -> [UInt8] {
        let sorted = entries.sorted(by: IndexEntry.precedes)
        var out = [UInt8]()
        out.reserveCapacity(headerBytes + sorted.count * entryBytes)
        out += magic
        out += [1, kind.rawValue, 0, 0]
        append(UInt64(sorted.count), to: &out)
        for entry in sorted {
            append(entry.key, to: &out)
            append32(entry.group, to: &out)
            append32(entry.slot, to: &out)
            append32(entry.bytes, to: &out)
            append32(entry.fetched, to: &out)
        }
        return out
    }

    /// The entries of a table's bytes; throws when they are not one of `kind`'s.
    static func decode(_ bytes: [UInt8], kind: Kind) throws -> [IndexEntry] {
        struct Bad: Error, CustomStringConvertible { var description: String }
        guard bytes.count >= headerBytes, Array(bytes[0..<4]) == magic, bytes[4] == 1, bytes[5] == kind.rawValue else {
            throw Bad(description: "not an index table of \(kind.fileExtension)")
        }
        let count = Int(read64(bytes, 8))
        guard count >= 0, bytes.count == headerBytes + count * entryBytes else {
            throw Bad(description: "an index table of \(count) entries with \(bytes.count) bytes")
        }
        var entries = [IndexEntry]()
        entries.reserveCapacity(count)
        var offset = headerBytes
        for _ in 0..<count {
            entries.append(IndexEntry(
                key: read64(bytes, offset), group: read32(bytes, offset + 8), slot: read32(bytes, offset + 12),
                bytes: read32(bytes, offset + 16), fetched: read32(bytes, offset + 20)))
            offset += entryBytes
        }
        return entries
    }

    private static func append(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func append32(_ value: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func read64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    private static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in (0..<4).reversed() { value = value << 8 | UInt32(bytes[offset + i]) }
        return value
    }
}

/// An index in memory: the entries of its base and deltas, merged (newest group first for each
/// key), with the entries added since it was loaded. Lookups are binary searches.
struct LoadedIndex: Sendable {
    private(set) var entries: [IndexEntry] = []

    init(tables: [[IndexEntry]] = []) {
        var all: [IndexEntry] = []
        all.reserveCapacity(tables.reduce(0) { $0 + $1.count })
        for table in tables { all += table }
        entries = Self.merged(all)
    }

    /// Sorts and keeps, for each key, the entry of the newest group only.
    static func merged(_ entries: [IndexEntry]) -> [IndexEntry] {
        var sorted = entries.sorted(by: IndexEntry.precedes)
        var kept = 0
        for index in sorted.indices where kept == 0 || sorted[index].key != sorted[kept - 1].key {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }

    /// The newest entry for `key`.
    func lookup(_ key: UInt64) -> IndexEntry? {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].key == key ? entries[low] : nil
    }

    /// Adds entries (newer than every loaded one).
    mutating func add(_ new: [IndexEntry]) {
        guard !new.isEmpty else { return }
        entries = Self.merged(entries + new)
    }

    /// Drops every entry of the groups in `groups`.
    mutating func drop(groups: Set<UInt32>) {
        guard !groups.isEmpty else { return }
        entries.removeAll { groups.contains($0.group) }
    }

    var count: Int { entries.count }
}
