#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlStorage

@Suite("ManifestReader and the conversion of what it reads")
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

    /// The items of the archive a version-2 manifest with `bytes` converts to (on a memory
    /// backend, as the first run over an earlier release's OUT converts it).
    static func converted(_ bytes: [UInt8]) async throws -> [ManifestItem] {
        let backend = Backends.memory()
        try await backend.save(Repository.rootHandle(state: ""), bytes: bytes, options: SaveOptions())
        let repository = try await Repository.openConverting(backend, state: "") { _ in }
        var items: [ManifestItem] = []
        try await repository.forEachItem { items.append($0) }
        return items
    }

    @Test func aVersion2ManifestIsConvertedItemByItemInOrder() async throws {
        let items = Self.items(40)
        let bytes = ManifestStore.encode(Manifest(generatedAt: ItemFixtures.may1, items: items))
        #expect(try await Self.converted(bytes) == items.sorted(by: ManifestItem.stableOrder))
        // No manifest at all is an empty archive.
        var none: [ManifestItem] = []
        try await Repository.open(Backends.memory()).forEachItem { none.append($0) }
        #expect(none.isEmpty)
    }

    @Test func anOutOfOrderFileIsConvertedInOrderEachKeyOnce() async throws {
        var random = TestRandom(seed: 3)
        let items = Self.items(30).shuffled(using: &random) + [ItemFixtures.item("pixabay", "3", title: "repeated")]
        let lines = items.map { String(decoding: ItemJSON.line($0), as: UTF8.self) }
        let text = #"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":["# + lines.joined(separator: ",") + "]}"
        let read = try await Self.converted(Array(text.utf8))
        #expect(read.map(\.key) == Self.items(30).map(\.key))
        // A repeated key is one item: the later line, as `Manifest.itemsByKey` reads one.
        #expect(read.first { $0.id == "3" }?.title == "repeated")
        #expect(read.filter { $0.id != "3" } == Self.items(30).filter { $0.id != "3" })
    }
}
