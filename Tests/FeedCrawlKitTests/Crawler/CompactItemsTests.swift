import FoundationEssentials
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
}
