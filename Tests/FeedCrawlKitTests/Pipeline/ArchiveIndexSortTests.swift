import Testing
@testable import FeedCrawlKit

@Suite("ArchiveIndex in-place sort")
struct ArchiveIndexSortTests {
    typealias Entry = ArchiveIndex.Entry

    static func sorted(_ entries: [Entry]) -> [Entry] {
        var copy = entries
        copy.withUnsafeMutableBufferPointer { ArchiveIndex.sortInPlace($0) }
        return copy
    }

    static func expected(_ entries: [Entry]) -> [(UInt64, UInt64)] {
        entries.map { ($0.key, $0.location) }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
    }

    /// Random keys, few distinct keys (one file in many items), and the orders that defeat a
    /// naive quicksort: every one sorted by key then location, as the standard sort would.
    @Test(arguments: [0, 1, 2, 17, 100, 5000])
    func sortsByKeyThenLocation(count: Int) {
        var random = TestRandom(seed: UInt64(count) + 3)
        func entry(_ key: UInt64, _ location: UInt64) -> Entry {
            Entry(key: key, location: location, fetchedAt: UInt32(truncatingIfNeeded: location), bytes: 1)
        }
        let cases: [[Entry]] = [
            (0..<count).map { entry(random.next(), UInt64($0)) },
            (0..<count).map { _ in entry(random.next() % 7, UInt64(random.int(0..<1000))) },
            (0..<count).map { entry(UInt64($0), UInt64($0)) },
            (0..<count).map { entry(UInt64(count - $0), 0) },
            (0..<count).map { entry(5, UInt64(count - $0)) },
            (0..<count).map { entry(UInt64(min($0, count - $0)), UInt64($0)) },
        ]
        for (index, entries) in cases.enumerated() {
            let result = Self.sorted(entries)
            #expect(result.map { $0.key } == Self.expected(entries).map(\.0), "case \(index)")
            #expect(result.map { $0.location } == Self.expected(entries).map(\.1), "case \(index)")
            // Each entry keeps its own fields.
            #expect(result.allSatisfy { $0.fetchedAt == UInt32(truncatingIfNeeded: $0.location) }, "case \(index)")
        }
    }
}
