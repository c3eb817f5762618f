/// Sorts item keys with where each item's text is, in bounded memory: entries are sorted in
/// chunks of `chunkSize`, each written to a `Spill` as a sorted run, and `sorted()` merges the
/// runs (a k-way merge reading each run a block at a time). Without a spill (or when writing it
/// fails) the runs stay in memory. Used for this run's items (journal lines, by key) and for the
/// contact sheet (manifest lines, by page).
final class ItemSorter {
    /// One item: its key, its page, the order it was added in, and where its text is.
    struct Entry: Equatable {
        var source: String
        var id: String
        var page: Int
        var sequence: Int
        var location: ItemLocation
    }

    /// The order entries come out in.
    enum Order {
        /// `ManifestItem.stableOrder` (source, id), then the order added.
        case key
        /// Source, page, id, then the order added (the contact sheet's grouping).
        case page

        func compare(_ a: Entry, _ b: Entry) -> Int {
            let sources = ManifestItem.compareBytes(a.source.utf8, b.source.utf8) ?? 0
            if sources != 0 { return sources }  // by bytes (see `ItemKey.order`)
            if self == .page, a.page != b.page { return a.page < b.page ? -1 : 1 }
            let ids = ManifestItem.compareIDs(a.id, b.id)
            if ids != 0 { return ids }
            return a.sequence < b.sequence ? -1 : (a.sequence > b.sequence ? 1 : 0)
        }
    }

    /// Entries sorted in memory before they are written out as a run; default 8192.
    static let defaultChunkSize = 8192

    let order: Order
    private let chunkSize: Int
    private let spill: Spill?
    private var spilling: Bool
    private var chunk: [Entry] = []
    private var runs: [Run] = []
    private var sequence = 0

    /// A sorter writing its runs to `spill` (nil: in memory).
    init(order: Order, spill: Spill?, chunkSize: Int = ItemSorter.defaultChunkSize) {
        self.order = order
        self.spill = spill
        spilling = spill != nil
        self.chunkSize = max(1, chunkSize)
    }

    /// Entries added so far.
    var count: Int { sequence }

    /// Adds one item.
    func add(source: String, id: String, page: Int, location: ItemLocation) {
        chunk.append(Entry(source: source, id: id, page: page, sequence: sequence, location: location))
        sequence += 1
        if chunk.count >= chunkSize { writeRun() }
    }

    /// Every entry added, in `order`; each call reads them anew (after it, `add` starts a new
    /// run).
    func sorted() -> Merged {
        let order = self.order
        if !chunk.isEmpty {
            chunk.sort { order.compare($0, $1) < 0 }
            runs.append(.memory(chunk))
            chunk = []
        }
        return Merged(order: order, readers: runs.map { RunReader(run: $0, spill: spill) })
    }

    private func writeRun() {
        let order = self.order
        chunk.sort { order.compare($0, $1) < 0 }
        defer { chunk.removeAll(keepingCapacity: true) }
        if let spill, spilling {
            var blocks: [(offset: Int64, length: Int)] = []
            var bytes: [UInt8] = []
            var ok = true
            for (index, entry) in chunk.enumerated() {
                Self.encode(entry, into: &bytes)
                if bytes.count >= Self.blockBytes || index == chunk.count - 1 {
                    guard let offset = spill.append(bytes) else { ok = false; break }
                    blocks.append((offset, bytes.count))
                    bytes.removeAll(keepingCapacity: true)
                }
            }
            if ok {
                runs.append(.spilled(blocks))
                return
            }
            spilling = false  // a full disk: keep this run and later ones in memory
        }
        runs.append(.memory(chunk))
    }

    /// Bytes per block of a spilled run (read back one block at a time).
    static let blockBytes = 8 << 10

    enum Run {
        case memory([Entry])
        case spilled([(offset: Int64, length: Int)])
    }

    /// Reads one run in order.
    struct RunReader {
        var run: Run
        var spill: Spill?
        var entries: [Entry] = []
        var index = 0
        var nextBlock = 0

        init(run: Run, spill: Spill? = nil) {
            self.run = run
            self.spill = spill
            if case .memory(let all) = run { entries = all }
        }

        /// Set when a block could not be read back (its entries are missing).
        var failed = false

        /// The next entry, or nil at the end (also when a block cannot be read back: `failed`).
        mutating func next() -> Entry? {
            if index < entries.count {
                defer { index += 1 }
                return entries[index]
            }
            guard case .spilled(let blocks) = run, nextBlock < blocks.count else { return nil }
            guard let spill, let bytes = spill.read(at: blocks[nextBlock].offset, count: blocks[nextBlock].length)
            else {
                failed = true
                return nil
            }
            nextBlock += 1
            entries = ItemSorter.decode(bytes)
            index = 0
            return next()
        }
    }

    /// The k-way merge of the runs.
    struct Merged: Sequence, IteratorProtocol {
        let order: Order
        var readers: [RunReader]
        /// The current head of each reader, nil when it is exhausted.
        private var heads: [Entry?]

        init(order: Order, readers: [RunReader]) {
            self.order = order
            self.readers = readers
            heads = []
            for index in self.readers.indices { heads.append(self.readers[index].next()) }
        }

        /// Whether some run could not be read back to its end (entries are missing).
        var failed: Bool { readers.contains { $0.failed } }

        mutating func next() -> Entry? {
            // Few runs (one per 8192 items): a linear scan of the heads is cheap enough.
            var best = -1
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if best < 0 || order.compare(head, heads[best]!) < 0 { best = index }
            }
            guard best >= 0 else { return nil }
            let entry = heads[best]
            heads[best] = readers[best].next()
            return entry
        }
    }

    // MARK: Encoding of spilled entries

    private static func encode(_ entry: Entry, into out: inout [UInt8]) {
        varint(UInt64(entry.source.utf8.count), &out)
        out.append(contentsOf: entry.source.utf8)
        varint(UInt64(entry.id.utf8.count), &out)
        out.append(contentsOf: entry.id.utf8)
        varint(UInt64(bitPattern: Int64(entry.page)), &out)
        varint(UInt64(entry.sequence), &out)
        varint(entry.location.raw, &out)
    }

    private static func varint(_ value: UInt64, _ out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    private static func decode(_ bytes: [UInt8]) -> [Entry] {
        var entries: [Entry] = []
        var i = 0
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                let b = bytes[i]
                i += 1
                value |= UInt64(b & 0x7F) << shift
                if b < 0x80 { break }
                shift += 7
            }
            return value
        }
        func string() -> String {
            let n = Int(varint())
            let end = min(i + n, bytes.count)
            defer { i = end }
            return String(decoding: bytes[i..<end], as: UTF8.self)
        }
        while i < bytes.count {
            let source = string()
            let id = string()
            let page = Int(Int64(bitPattern: varint()))
            let sequence = Int(varint())
            let location = ItemLocation(raw: varint())
            entries.append(Entry(source: source, id: id, page: page, sequence: sequence, location: location))
        }
        return entries
    }
}
