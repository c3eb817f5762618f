import FoundationEssentials
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

/// `ItemSorter` against a plain sort: tiny chunks so many runs are spilled and merged, with no
/// spill, and with a spill whose writes fail part way.
@Suite("ItemSorter")
struct ItemSorterTests {
    typealias Entry = ItemSorter.Entry

    /// The id order written plainly: ids of digits first, by numeric value (equal values by
    /// text), then the others by their bytes.
    static func idsInOrder(_ a: String, _ b: String) -> Bool? {
        func numeric(_ s: String) -> Bool { !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        switch (numeric(a), numeric(b)) {
        case (true, false): return true
        case (false, true): return false
        case (true, true):
            let x = String(a.drop { $0 == "0" }), y = String(b.drop { $0 == "0" })
            if x.count != y.count { return x.count < y.count }
            if x != y { return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)) }
            fallthrough
        default:
            if a == b && Array(a.utf8) == Array(b.utf8) { return nil }
            return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
    }

    static func reference(_ entries: [Entry], _ order: ItemSorter.Order) -> [Entry] {
        entries.sorted { a, b in
            if Array(a.source.utf8) != Array(b.source.utf8) { return Array(a.source.utf8).lexicographicallyPrecedes(Array(b.source.utf8)) }
            if order == .page, a.page != b.page { return a.page < b.page }
            if Array(a.id.utf8) != Array(b.id.utf8), let inOrder = idsInOrder(a.id, b.id) { return inOrder }
            return a.sequence < b.sequence
        }
    }

    static func entries(_ count: Int, seed: UInt64) -> [Entry] {
        var random = TestRandom(seed: seed)
        let sources = ["pixabay", "launches", "a", "é", "e\u{301}", "f", "Z", ""]  // é twice: precomposed and decomposed
        return (0..<count).map { n in
            let id: String
            switch random.int(0..<4) {
            case 0: id = String(random.int(0..<50))
            case 1: id = String(repeating: "0", count: random.int(0..<3)) + String(random.int(0..<50))
            case 2: id = random.pick(["x", "X", "é", "", "10a", "page1-index2", "😀", "18446744073709551617"])
            default: id = ItemFixtures.string(&random, maxPieces: 2)
            }
            let offset = Int64(random.int(0..<(1 << 30))) * (random.chance(0.1) ? 1024 : 1)
            let length = random.chance(0.1) ? ItemLocation.maxLength : random.int(0..<5000)
            return Entry(
                source: random.pick(sources), id: id, page: random.chance(0.1) ? random.pick([Int.min, -1, Int.max]) : random.int(1..<20),
                sequence: n, location: ItemLocation(offset: offset, length: length))
        }
    }

    static func sort(_ entries: [Entry], order: ItemSorter.Order, spill: Spill?, chunkSize: Int) -> [Entry] {
        let sorter = ItemSorter(order: order, spill: spill, chunkSize: chunkSize)
        for entry in entries {
            sorter.add(source: entry.source, id: entry.id, page: entry.page, location: entry.location)
        }
        #expect(sorter.count == entries.count)
        return Array(sorter.sorted())
    }

    @Test(arguments: [ItemSorter.Order.key, .page])
    func spilledRunsMergeIntoThePlainSort(order: ItemSorter.Order) throws {
        let dir = TestDirectory()
        let entries = Self.entries(3000, seed: 17)
        let spill = try #require(Spill(directory: dir.path))
        #expect(Self.sort(entries, order: order, spill: spill, chunkSize: 7) == Self.reference(entries, order))
        #expect(spill.size > 0)  // the runs were written out
        // Chunks larger than the input, and the default: one run.
        #expect(Self.sort(entries, order: order, spill: spill, chunkSize: 5000) == Self.reference(entries, order))
        #expect(Self.sort(entries, order: order, spill: spill, chunkSize: ItemSorter.defaultChunkSize) == Self.reference(entries, order))
        #expect(TestDirectory.list(dir.path).isEmpty)  // the spill has no name
    }

    @Test func withoutASpillTheRunsStayInMemory() {
        let entries = Self.entries(2000, seed: 23)
        #expect(Self.sort(entries, order: .key, spill: nil, chunkSize: 3) == Self.reference(entries, .key))
        #expect(Self.sort([], order: .key, spill: nil, chunkSize: 3).isEmpty)
    }

    @Test func aSpillWhoseWritesFailKeepsTheRestInMemory() throws {
        let dir = TestDirectory()
        let entries = Self.entries(4000, seed: 31)
        let spill = try #require(Spill(directory: dir.path))
        // Room for a few runs, then the device is full.
        WriteFaults.arm(directory: dir.path, allowBytes: 2000)
        defer { WriteFaults.disarm(directory: dir.path) }
        #expect(Self.sort(entries, order: .key, spill: spill, chunkSize: 11) == Self.reference(entries, .key))
        #expect(spill.size > 0 && spill.size <= 2000)
        // Full from the start.
        WriteFaults.arm(directory: dir.path, allowBytes: 0)
        let empty = try #require(Spill(directory: dir.path))
        #expect(Self.sort(entries, order: .page, spill: empty, chunkSize: 11) == Self.reference(entries, .page))
        #expect(empty.size == 0)
    }

    @Test func sortedCanBeReadAgainAndAddingGoesOn() throws {
        let dir = TestDirectory()
        let entries = Self.entries(100, seed: 41)
        let sorter = ItemSorter(order: .key, spill: Spill(directory: dir.path), chunkSize: 8)
        for entry in entries.prefix(60) {
            sorter.add(source: entry.source, id: entry.id, page: entry.page, location: entry.location)
        }
        let first = Array(sorter.sorted())
        #expect(first == Self.reference(Array(entries.prefix(60)), .key))
        #expect(Array(sorter.sorted()) == first)
        for entry in entries.dropFirst(60) {
            sorter.add(source: entry.source, id: entry.id, page: entry.page, location: entry.location)
        }
        #expect(Array(sorter.sorted()) == Self.reference(entries, .key))
    }

    @Test func theReferenceOrderIsTheManifestOrder() {
        // The plain rule above and ManifestItem.stableOrder agree (so the sorter's output is the
        // manifest's order).
        let entries = Self.entries(1500, seed: 53)
        let byReference = Self.reference(entries, .key).map { ItemKey(source: $0.source, id: $0.id) }
        let byManifest = entries.map { ItemFixtures.item($0.source, $0.id) }.enumerated().sorted { a, b in
            if ManifestItem.stableOrder(a.element, b.element) { return true }
            if ManifestItem.stableOrder(b.element, a.element) { return false }
            return a.offset < b.offset
        }.map(\.element.key)
        #expect(byReference == byManifest)
    }
}
