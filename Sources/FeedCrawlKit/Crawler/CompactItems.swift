import FoundationEssentials

/// Manifest items kept as compact binary records in large chunks, so a crawl's memory grows by
/// about 300 bytes per item instead of the ~1.5 KB a `ManifestItem` with its strings takes
/// (20,000 items: ~6 MB instead of ~30 MB). With a `CompactSpill`, every full chunk moves to an
/// anonymous file, and memory does not grow with the item count at all. Append-only; records are
/// decoded on demand.
///
/// Record: a presence mask (varint), then the present fields in declaration order. Strings are
/// a varint length and UTF-8; integers zigzag varints; dates the 8 bytes of their
/// `timeIntervalSince1970`; a lowercase hex `sha256` is packed into 32 bytes.
struct CompactItems {
    /// Where a record is: chunk index (high 32 bits) and byte offset.
    typealias Ref = UInt64

    /// Bytes per chunk by default, 64 KiB (a larger record gets a chunk of its own).
    static let chunkSize = 64 * 1024

    private let chunkBytes: Int
    private var chunks: [[UInt8]] = []
    /// Per chunk: where it is in `spill`, or nil while it is in `chunks`.
    private var spilled: [(offset: Int64, length: Int)?] = []
    private var spill: CompactSpill?
    /// False once a write to `spill` failed (a full disk): later chunks stay in memory.
    private var spilling: Bool
    private var scratch: [UInt8] = []
    /// Records stored.
    private(set) var count = 0

    /// A store with chunks of `chunkSize` bytes (default 64 KiB) that moves each full chunk to
    /// `spill` when there is one (default: none, everything stays in memory).
    init(chunkSize: Int = CompactItems.chunkSize, spill: CompactSpill? = nil) {
        chunkBytes = max(1, chunkSize)
        self.spill = spill
        spilling = spill != nil
    }

    /// Chunks moved to the spill file.
    var spilledChunks: Int { spilled.count { $0 != nil } }

    /// Stores `item` and returns where it is.
    mutating func append(_ item: ManifestItem) -> Ref {
        scratch.removeAll(keepingCapacity: true)
        Self.encode(item, into: &scratch)
        if chunks.isEmpty || chunks[chunks.count - 1].count + scratch.count > chunkBytes {
            if !chunks.isEmpty { spillLastChunk() }
            var chunk: [UInt8] = []
            chunk.reserveCapacity(max(chunkBytes, scratch.count))
            chunks.append(chunk)
            spilled.append(nil)
        }
        let index = chunks.count - 1
        let offset = chunks[index].count
        chunks[index].append(contentsOf: scratch)
        count += 1
        return UInt64(index) << 32 | UInt64(offset)
    }

    /// The item stored at `ref`.
    func item(_ ref: Ref) -> ManifestItem {
        // Our own file could not be read back (an I/O error): say so rather than guess.
        withRecord(ref) { Self.decode(&$0) } ?? ManifestItem(
            source: "feedcrawl", id: "unreadable-\(ref)", page: 0, title: "", imageURL: nil, status: .cancelled,
            error: "this item's record could not be read back from the run's spill file")
    }

    /// The listing facts of the item stored at `ref` (source, page, id), read without decoding
    /// the rest of its record: what sorting the items needs.
    func listing(_ ref: Ref) -> (source: String, page: Int, id: String) {
        let unreadable = ("feedcrawl", 0, "unreadable-\(ref)")
        return withRecord(ref) { reader in
            _ = reader.varint()
            let source = reader.string()
            let id = reader.string()
            return (source, Int(reader.int()), id)
        } ?? unreadable
    }

    /// Calls `read` with a reader at the start of the record at `ref`; nil when the record's
    /// chunk could not be read back from the spill file.
    private func withRecord<T>(_ ref: Ref, _ read: (inout Reader) -> T) -> T? {
        let index = Int(ref >> 32)
        let position = Int(ref & 0xFFFF_FFFF)
        if let place = spilled[index] {
            return spill?.withChunk(index, offset: place.offset, length: place.length) { chunk in
                var reader = Reader(bytes: chunk, position: position)
                return read(&reader)
            }
        }
        return chunks[index].withUnsafeBufferPointer { chunk in
            var reader = Reader(bytes: chunk, position: position)
            return read(&reader)
        }
    }

    /// Moves the last chunk (full: a new one is about to start) to the spill file.
    private mutating func spillLastChunk() {
        guard spilling, let spill else { return }
        let index = chunks.count - 1
        guard let offset = spill.write(chunks[index]) else {
            spilling = false
            return
        }
        spilled[index] = (offset, chunks[index].count)
        chunks[index] = []
    }

    // MARK: Encoding

    private enum Field: Int {
        case imageURL, file, bytes, sha256, sha256Hex, contentType, width, height, error, author, etag
        case lastModified, fetchedAt, lastSeen, details
        var bit: UInt64 { 1 << UInt64(rawValue) }
    }

    private static func encode(_ item: ManifestItem, into out: inout [UInt8]) {
        let packedSHA = item.sha256.flatMap(Self.packHex)
        var mask: UInt64 = 0
        if item.imageURL != nil { mask |= Field.imageURL.bit }
        if item.file != nil { mask |= Field.file.bit }
        if item.bytes != nil { mask |= Field.bytes.bit }
        if packedSHA != nil { mask |= Field.sha256.bit } else if item.sha256 != nil { mask |= Field.sha256Hex.bit }
        if item.contentType != nil { mask |= Field.contentType.bit }
        if item.width != nil { mask |= Field.width.bit }
        if item.height != nil { mask |= Field.height.bit }
        if item.error != nil { mask |= Field.error.bit }
        if item.author != nil { mask |= Field.author.bit }
        if item.etag != nil { mask |= Field.etag.bit }
        if item.lastModified != nil { mask |= Field.lastModified.bit }
        if item.fetchedAt != nil { mask |= Field.fetchedAt.bit }
        if item.lastSeen != nil { mask |= Field.lastSeen.bit }
        if item.details != nil { mask |= Field.details.bit }

        varint(mask, into: &out)
        string(item.source, into: &out)
        string(item.id, into: &out)
        int(Int64(item.page), into: &out)
        string(item.title, into: &out)
        out.append(statusCode(item.status))
        if let v = item.imageURL { string(v, into: &out) }
        if let v = item.file { string(v, into: &out) }
        if let v = item.bytes { int(v, into: &out) }
        if let packedSHA { out.append(contentsOf: packedSHA) } else if let v = item.sha256 { string(v, into: &out) }
        if let v = item.contentType { string(v, into: &out) }
        if let v = item.width { int(Int64(v), into: &out) }
        if let v = item.height { int(Int64(v), into: &out) }
        if let v = item.error { string(v, into: &out) }
        if let v = item.author { string(v, into: &out) }
        if let v = item.etag { string(v, into: &out) }
        if let v = item.lastModified { string(v, into: &out) }
        if let v = item.fetchedAt { date(v, into: &out) }
        if let v = item.lastSeen { date(v, into: &out) }
        if let v = item.details { encode(v, into: &out) }
    }

    private static func encode(_ d: LaunchDetails, into out: inout [UInt8]) {
        let fields: [String?] = [
            d.rocketName, d.rocketType, d.site, d.largePatchURL, d.largePatchFile, d.largePatchSHA256,
        ]
        var mask: UInt64 = 0
        for (bit, field) in fields.enumerated() where field != nil { mask |= 1 << UInt64(bit) }
        if d.largePatchStatus != nil { mask |= 1 << 6 }
        let more: [String?] = [d.largePatchETag, d.largePatchLastModified, d.largePatchError, d.error]
        for (bit, field) in more.enumerated() where field != nil { mask |= 1 << UInt64(7 + bit) }
        if d.largePatchBytes != nil { mask |= 1 << 11 }
        if d.largePatchFetchedAt != nil { mask |= 1 << 12 }
        varint(mask, into: &out)
        for field in fields { if let field { string(field, into: &out) } }
        if let status = d.largePatchStatus { out.append(statusCode(status)) }
        for field in more { if let field { string(field, into: &out) } }
        if let v = d.largePatchBytes { int(v, into: &out) }
        if let v = d.largePatchFetchedAt { date(v, into: &out) }
    }

    private static func decode(_ r: inout Reader) -> ManifestItem {
        let mask = r.varint()
        func has(_ field: Field) -> Bool { mask & field.bit != 0 }
        let source = r.string()
        let id = r.string()
        let page = Int(r.int())
        let title = r.string()
        let status = Self.status(r.byte())
        var item = ManifestItem(source: source, id: id, page: page, title: title,
                                imageURL: has(.imageURL) ? r.string() : nil, status: status)
        if has(.file) { item.file = r.string() }
        if has(.bytes) { item.bytes = r.int() }
        if has(.sha256) { item.sha256 = r.hex(32) } else if has(.sha256Hex) { item.sha256 = r.string() }
        if has(.contentType) { item.contentType = r.string() }
        if has(.width) { item.width = Int(r.int()) }
        if has(.height) { item.height = Int(r.int()) }
        if has(.error) { item.error = r.string() }
        if has(.author) { item.author = r.string() }
        if has(.etag) { item.etag = r.string() }
        if has(.lastModified) { item.lastModified = r.string() }
        if has(.fetchedAt) { item.fetchedAt = r.date() }
        if has(.lastSeen) { item.lastSeen = r.date() }
        if has(.details) { item.details = decodeDetails(&r) }
        return item
    }

    private static func decodeDetails(_ r: inout Reader) -> LaunchDetails {
        let mask = r.varint()
        func next(_ bit: UInt64) -> String? { mask & (1 << bit) != 0 ? r.string() : nil }
        var d = LaunchDetails()
        d.rocketName = next(0)
        d.rocketType = next(1)
        d.site = next(2)
        d.largePatchURL = next(3)
        d.largePatchFile = next(4)
        d.largePatchSHA256 = next(5)
        if mask & (1 << 6) != 0 { d.largePatchStatus = status(r.byte()) }
        d.largePatchETag = next(7)
        d.largePatchLastModified = next(8)
        d.largePatchError = next(9)
        d.error = next(10)
        if mask & (1 << 11) != 0 { d.largePatchBytes = r.int() }
        if mask & (1 << 12) != 0 { d.largePatchFetchedAt = r.date() }
        return d
    }

    private static func statusCode(_ status: ItemStatus) -> UInt8 {
        UInt8(ItemStatus.allCases.firstIndex(of: status) ?? 0)
    }

    private static func status(_ code: UInt8) -> ItemStatus {
        let all = ItemStatus.allCases
        return Int(code) < all.count ? all[all.index(all.startIndex, offsetBy: Int(code))] : .cancelled
    }

    private static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    private static func int(_ value: Int64, into out: inout [UInt8]) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)), into: &out)
    }

    private static func string(_ value: String, into out: inout [UInt8]) {
        var value = value
        value.withUTF8 { utf8 in
            varint(UInt64(utf8.count), into: &out)
            out.append(contentsOf: utf8)
        }
    }

    private static func date(_ value: Date, into out: inout [UInt8]) {
        withUnsafeBytes(of: value.timeIntervalSince1970.bitPattern.littleEndian) { out.append(contentsOf: $0) }
    }

    /// 64 lowercase hex digits as 32 bytes, or nil for anything else.
    private static func packHex(_ text: String) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count == 64 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(32)
        var high: UInt8?
        for c in utf8 {
            let nibble: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return out
    }

    /// Reads a record written by `encode` (trusted: this process wrote it).
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position: Int

        mutating func byte() -> UInt8 {
            defer { position += 1 }
            return bytes[position]
        }

        mutating func varint() -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = byte()
                result |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return result }
                shift += 7
            }
        }

        mutating func int() -> Int64 {
            let v = varint()
            return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
        }

        mutating func string() -> String {
            let length = Int(varint())
            defer { position += length }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<(position + length)]), as: UTF8.self)
        }

        mutating func date() -> Date {
            var bits: UInt64 = 0
            for i in 0..<8 { bits |= UInt64(byte()) << UInt64(8 * i) }
            return Date(timeIntervalSince1970: Double(bitPattern: bits))
        }

        mutating func hex(_ count: Int) -> String {
            let digits: StaticString = "0123456789abcdef"
            let start = position
            position += count
            return String(unsafeUninitializedCapacity: count * 2) { out in
                digits.withUTF8Buffer { table in
                    for i in 0..<count {
                        let b = bytes[start + i]
                        out[2 * i] = table[Int(b >> 4)]
                        out[2 * i + 1] = table[Int(b & 0x0F)]
                    }
                }
                return count * 2
            }
        }
    }
}
