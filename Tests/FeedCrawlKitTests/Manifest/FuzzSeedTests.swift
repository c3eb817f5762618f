import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// The FuzzManifest seeds are what their names say (a seed that no longer decodes would leave
/// the fuzzer starting from noise): version-2 and version-1 manifests and journals.
@Suite("FuzzManifest seeds")
struct FuzzSeedTests {
    static func seed(_ name: String) throws -> [UInt8] {
        var path = #filePath
        for _ in 0..<4 { path = FileIO.directoryName(of: path) }
        return try FileIO.read(path + "/Sources/Fuzz/Corpus/FuzzManifest/" + name)
    }

    @Test func version2Seeds() throws {
        let manifest = try ManifestStore.decode(try Self.seed("manifest-v2.json"))
        #expect(manifest.version == 2)
        #expect(manifest.items.count == 6)
        #expect(manifest.items == manifest.items.sorted(by: ManifestItem.stableOrder))
        #expect(manifest.run?.options["pixabay.type"] == "pixabay")
        #expect(Set(manifest.items.flatMap(\.images).map(\.variant)) == ["image", "small", "large", "preview", "webformat"])
        for line in try Self.seed("manifest-v2.json").split(separator: 0x0A) where line.starts(with: Array("    {".utf8)) {
            var text = Array(line.drop { $0 == 0x20 })
            if text.last == UInt8(ascii: ",") { text.removeLast() }
            #expect(ItemJSON.scannerDecode(text) != nil, "\(String(decoding: text, as: UTF8.self).prefix(60))")
        }
        let hand = try ManifestStore.decode(try Self.seed("manifest-v2-hand-edited.json"))
        #expect(hand.items.count == 7)  // out of order, one key twice
        #expect(hand.sortedItems.count == 6)
        let journal = ItemJSON.journalLines(try Self.seed("journal-v2.txt"))
        #expect(journal.items.count == 4)
        #expect(journal.skipped == 1)
    }

    @Test func version1Seeds() throws {
        let plain = try ManifestStore.decode(try Self.seed("manifest-v1.json"))
        #expect(plain.version == 1)
        #expect(plain.items.count == 3)
        let details = try ManifestStore.decode(try Self.seed("manifest-v1-details.json"))
        #expect(details.version == 1)
        #expect(details.sortedItems == V1Fixtures.converted)
        let journal = ItemJSON.journalLines(try Self.seed("journal-v1-details.txt"), v1: V1Fixtures.variants)
        #expect(journal.items.count == 4)
        #expect(journal.skipped == 0)
        #expect(ItemJSON.journalLines(try Self.seed("journal-v1.txt")).items.count >= 1)
    }
}
