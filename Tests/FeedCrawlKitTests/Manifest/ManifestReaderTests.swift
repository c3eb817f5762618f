#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("ManifestReader and ManifestItemStream")
struct ManifestReaderTests {
    static func items(_ count: Int) -> [ManifestItem] {
        (0..<count).map { ItemFixtures.item("pixabay", String($0), page: $0 / 10 + 1, title: "t\($0) " + ItemFixtures.nasty) }
    }

    static func bytes(at location: ItemLocation, in path: String) throws -> [UInt8] {
        let fd = try FileIO.open(path, O_RDONLY)
        defer { close(fd) }
        return try FileIO.readAt(fd, offset: location.offset, count: location.length, path: path) { Array($0) }
    }

    @Test func locationsPointAtEachItemsLine() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        let items = Self.items(2500)  // several read buffers
        try ManifestStore.save(Manifest(generatedAt: ItemFixtures.may1, run: ManifestTests.run, items: items), path: path)
        let reader = try #require(try ManifestReader.open(path: path))
        #expect(reader.header.version == 2)
        #expect(reader.header.generatedAt == ItemFixtures.may1)
        #expect(reader.header.run == nil)  // version 2 writes it after the items
        var read: [ManifestItem] = []
        while let (item, location) = try reader.next() {
            #expect(try Self.bytes(at: location, in: path) == ItemJSON.line(item), "item \(item.id)")
            read.append(item)
        }
        #expect(read == items.sorted(by: ManifestItem.stableOrder))
        #expect(reader.header.run == ManifestTests.run)  // read when the items ended
        #expect(try reader.next() == nil)
    }

    @Test func locationsInAHandEditedFileNameTheWholeElement() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        let text = """
            {"generatedAt":"2024-05-01T12:00:00Z","version":2,"items":[
              { "source" : "p", "id" : "1", "page" : 1,
                "title" : "a ] } [ { \\" ,", "images" : [ ] } ,{"source":"p","id":"2","page":1,"images":[]}
            ]}
            """
        try AtomicFile.write(Array(text.utf8), to: path)
        let reader = try #require(try ManifestReader.open(path: path))
        var texts: [String] = []
        while let (item, location) = try reader.next() {
            let element = try Self.bytes(at: location, in: path)
            #expect(try ItemJSON.decode(element) == item)
            texts.append(String(decoding: element, as: UTF8.self))
        }
        #expect(texts.count == 2)
        #expect(texts[0].hasPrefix("{ \"source\" : \"p\"") && texts[0].hasSuffix("\"images\" : [ ] }"))
        #expect(texts[1] == #"{"source":"p","id":"2","page":1,"images":[]}"#)
    }

    @Test func anElementOverTheMaximumLengthIsAClearError() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        let huge = String(repeating: "x", count: ItemLocation.maxLength)
        let text = #"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"p","id":"1","page":1,"images":[]},{"source":"p","id":"2","page":1,"title":""# + huge + #"","images":[]}]}"#
        try AtomicFile.write(Array(text.utf8), to: path)
        let reader = try #require(try ManifestReader.open(path: path))
        #expect(try reader.next()?.item.id == "1")
        let error = #expect(throws: ManifestStore.Error.self) { try reader.next() }
        guard case .corrupt(let named, let reason)? = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(named == path)
        #expect(reason.hasPrefix("value longer than \(ItemLocation.maxLength) bytes at byte "), "\(reason)")
        // Also in memory, and for a key.
        let key = String(repeating: "k", count: 5000)
        let keyError = #expect(throws: ManifestStore.Error.self) {
            try ManifestStore.decode(Array("{\"\(key)\":1}".utf8))
        }
        #expect(keyError?.description.contains("value longer than 4096 bytes") == true, "\(String(describing: keyError))")
    }

    @Test func aVersion2StreamReadsEachItemAndChecksTheOrder() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        let items = Self.items(40)
        try ManifestStore.save(Manifest(generatedAt: ItemFixtures.may1, items: items), path: path)
        #expect(try ManifestItemStream.isSorted(path: path))
        let stream = try ManifestItemStream(path: path, spill: nil)
        var read: [ManifestItem] = []
        while let entry = try stream.next() {
            #expect(entry.line == nil)  // written anew: a hand edit may have left a stale status
            read.append(entry.item)
        }
        #expect(read == items.sorted(by: ManifestItem.stableOrder))
        // A missing file is an empty stream.
        #expect(try ManifestItemStream(path: dir.file("none.json"), spill: nil).next() == nil)
    }

    @Test func anOutOfOrderFileIsReadThroughTheSorterFirstOfARepeatedKeyWinning() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        var random = TestRandom(seed: 3)
        let items = Self.items(30).shuffled(using: &random) + [ItemFixtures.item("pixabay", "3", title: "repeated")]
        let lines = items.map { String(decoding: ItemJSON.line($0), as: UTF8.self) }
        let text = #"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":["# + lines.joined(separator: ",") + "]}"
        try AtomicFile.write(Array(text.utf8), to: path)
        #expect(try !ManifestItemStream.isSorted(path: path))
        let stream = try ManifestItemStream(path: path, spill: Spill(directory: dir.path))
        var read: [ManifestItem] = []
        while let entry = try stream.next() {
            #expect(entry.line == nil)  // written anew
            read.append(entry.item)
        }
        #expect(read == Self.items(30))
        #expect(read.first { $0.id == "3" }?.title != "repeated")
        // Told (wrongly) that it is sorted, the stream stops at the first item out of order.
        let trusting = try ManifestItemStream(path: path, spill: nil, sorted: true)
        let error = #expect(throws: ManifestStore.Error.self) { while try trusting.next() != nil {} }
        #expect(error?.description.contains("items out of order at pixabay/") == true)
    }
}
