import Testing

@testable import FeedCrawlKit
@testable import FeedCrawlStorage

/// A forget's compact record of a file (`ForgottenFile`): its name comes back whole, leading
/// zeros included, and its key is the index's.
@Suite struct ForgottenFileTests {
    @Test func theNameComesBackWholeAndTheKeyIsTheIndexes() throws {
        let hex = "000000000000000a" + "00ff00ff00ff00ff" + "0123456789abcdef" + "fedcba9876543210"
        let file = "cache/00/" + hex + ".webp"
        let record = try #require(ForgottenFile(file: file, group: 7, item: 3, image: 1, bytes: 600))
        #expect(record.handle?.file == file)
        #expect(record.key == CacheKey(file: file)?.prefix)
        #expect(record.group == 7 && record.item == 3 && record.image == 1 && record.bytes == 600)
        #expect(MemoryLayout<ForgottenFile>.size <= 64)
    }

    @Test func aNameOfAnotherShapeHasNoRecord() {
        let hex = String(repeating: "ab", count: 32)
        #expect(ForgottenFile(file: "cache/ab/" + hex + ".bmp", group: 1, item: 0, image: 0, bytes: 1) == nil)
        #expect(ForgottenFile(file: "cache/cd/" + hex + ".jpg", group: 1, item: 0, image: 0, bytes: 1) == nil)
        #expect(ForgottenFile(file: "elsewhere/" + hex + ".jpg", group: 1, item: 0, image: 0, bytes: 1) == nil)
    }
}
