import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit

@Suite("CompactItems")
struct CompactItemsTests {
    @Test func everyItemComesBackEqual() {
        var store = CompactItems()
        let items = JSONTextTests.items + [
            // sha256 that is not 64 lowercase hex digits is kept as text.
            ManifestItem(source: "p", id: "1", page: 1, title: "", imageURL: "u", status: .downloaded,
                         sha256: String(repeating: "A", count: 64)),
            ManifestItem(source: "p", id: "2", page: 1, title: "", imageURL: "u", status: .fresh, sha256: "abc"),
            ManifestItem(source: "p", id: "3", page: -5, title: "", imageURL: "", status: .revalidated,
                         sha256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
        ] + ItemStatus.allCases.map {
            ManifestItem(source: "s", id: $0.rawValue, page: 1, title: "t", imageURL: nil, status: $0,
                         details: LaunchDetails(largePatchStatus: $0))
        }
        let refs = items.map { store.append($0) }
        #expect(store.count == items.count)
        for (item, ref) in zip(items, refs) {
            #expect(store.item(ref) == item)
            #expect(store.listing(ref) == (item.source, item.page, item.id))
        }
    }

    @Test func recordsSpillIntoNewChunksAndBigRecordsFit() {
        var store = CompactItems()
        let big = String(repeating: "x", count: CompactItems.chunkSize + 10)
        var refs: [(CompactItems.Ref, ManifestItem)] = []
        for i in 0..<3000 {
            let item = ManifestItem(source: "pixabay", id: String(i), page: i, title: i == 1500 ? big : "title \(i)",
                                    imageURL: "https://cdn.example/\(i).jpg", status: .downloaded,
                                    file: "cache/ab/\(i).jpg", bytes: Int64(i) * 1000,
                                    sha256: String(repeating: "e", count: 64), lastSeen: Date(timeIntervalSince1970: 1e9))
            refs.append((store.append(item), item))
        }
        #expect(refs.allSatisfy { store.item($0.0) == $0.1 })
        #expect(Set(refs.map { $0.0 >> 32 }).count > 2)
    }

    static func pixabayItem(_ i: Int, title: String? = nil) -> ManifestItem {
        ManifestItem(source: "pixabay", id: String(i), page: i / 200 + 1, title: title ?? "title \(i)",
                     imageURL: "https://cdn.example/\(i).jpg", status: .downloaded,
                     file: "cache/ab/\(i).jpg", bytes: Int64(i) * 1000,
                     sha256: String(repeating: "e", count: 64), lastSeen: Date(timeIntervalSince1970: 1e9))
    }

    /// Names in `path` (the spill file has none).
    static func names(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    @Test func fullChunksMoveToTheSpillFileAndReadBackEqual() throws {
        let dir = TestDirectory()
        let spill = try #require(CompactSpill(directory: dir.path))
        var store = CompactItems(chunkSize: 4096, spill: spill)
        let big = String(repeating: "x", count: 10_000)  // a record larger than a chunk
        var refs: [(CompactItems.Ref, ManifestItem)] = []
        for i in 0..<3000 {
            let item = Self.pixabayItem(i, title: i == 1500 ? big : nil)
            refs.append((store.append(item), item))
        }
        #expect(store.spilledChunks > 50)
        #expect(Self.names(dir.path).isEmpty)  // an anonymous file
        // In order, backwards and scattered: every record comes back equal.
        #expect(refs.allSatisfy { store.item($0.0) == $0.1 })
        #expect(refs.reversed().allSatisfy { store.listing($0.0) == ($0.1.source, $0.1.page, $0.1.id) })
        #expect(refs.reversed().allSatisfy { store.item($0.0) == $0.1 })
        for step in [7, 131, 997] {
            var index = 0
            for _ in 0..<refs.count {
                index = (index + step) % refs.count
                #expect(store.item(refs[index].0) == refs[index].1)
            }
        }
        // A copy (the ledger hands its store over at the end) reads the same file.
        let copy = store
        #expect(copy.item(refs[10].0) == refs[10].1)
    }

    @Test func withoutASpillFileEverythingStaysInMemory() {
        var store = CompactItems(chunkSize: 4096)
        let refs = (0..<500).map { store.append(Self.pixabayItem($0)) }
        #expect(store.spilledChunks == 0)
        #expect(zip(refs, 0..<500).allSatisfy { store.item($0) == Self.pixabayItem($1) })
    }

    /// A full disk (an injected ENOSPC) stops the spilling; later chunks stay in memory and every
    /// record still reads back.
    @Test func aFailedSpillWriteKeepsLaterChunksInMemory() throws {
        let dir = TestDirectory()
        let spill = try #require(CompactSpill(directory: dir.path))
        WriteFaults.arm(directory: dir.path, allowBytes: 3 * 4096)
        defer { WriteFaults.disarm(directory: dir.path) }
        var store = CompactItems(chunkSize: 4096, spill: spill)
        let refs = (0..<1000).map { store.append(Self.pixabayItem($0)) }
        #expect(store.spilledChunks == 3)
        #expect(zip(refs, 0..<1000).allSatisfy { store.item($0) == Self.pixabayItem($1) })
    }
}
