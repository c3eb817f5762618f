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
        guard let dot = file.utf8.lastIndex(of: UInt8(ascii: ".")) else { return 0 }
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

/// The index tables' entry coding (`IndexFile` writes and reads the files): 24 bytes an entry,
/// little-endian: key, group, slot, bytes, fetched.
enum IndexTable {
    static let entryBytes = 24

    /// Which index a table belongs to.
    enum Kind: UInt8, Sendable {
        case items = 1
        case files = 2

        var fileExtension: String { self == .items ? "items" : "files" }
    }

    /// A table that cannot be read.
    struct Bad: Error, CustomStringConvertible {
        var description: String
    }

    static func append(_ entry: IndexEntry, to out: inout [UInt8]) {
        append64(entry.key, to: &out)
        append32(entry.group, to: &out)
        append32(entry.slot, to: &out)
        append32(entry.bytes, to: &out)
        append32(entry.fetched, to: &out)
    }

    static func entry(_ bytes: [UInt8], _ offset: Int) -> IndexEntry {
        IndexEntry(
            key: read64(bytes, offset), group: read32(bytes, offset + 8), slot: read32(bytes, offset + 12),
            bytes: read32(bytes, offset + 16), fetched: read32(bytes, offset + 20))
    }

    static func append64(_ value: UInt64, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func append32(_ value: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func read64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    static func read32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in (0..<4).reversed() { value = value << 8 | UInt32(bytes[offset + i]) }
        return value
    }
}
