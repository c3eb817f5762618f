#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlStorage
import FeedCrawlSupport

/// Version-1 manifests and journals (feedcrawl 0.1) are read and converted: each item's image
/// becomes the variant it was fetched as, its `details.largePatch*` the `large` variant, every
/// file fact kept.
@Suite("Version-1 manifests and journals")
struct ManifestV1Tests {
    static let bytes = Array(V1Fixtures.manifest.utf8)

    @Test func aVersion1ManifestIsReadAndConverted() throws {
        let manifest = try ManifestStore.decode(Self.bytes)
        #expect(manifest.version == 1)
        #expect(manifest.generatedAt == V1Fixtures.seen)
        // The run comes after the items in version 1 (sorted keys); it is read all the same.
        #expect(manifest.run?.options["spacex.patchSize"] == "large")
        #expect(manifest.run?.counts["rejected"] == 2)
        #expect(manifest.run?.images == nil)
        #expect(manifest.items.sorted(by: ManifestItem.stableOrder) == V1Fixtures.converted)
        for (item, expected) in zip(manifest.sortedItems, V1Fixtures.converted) {
            #expect(item == expected, "\(item.source)/\(item.id)")
        }
    }

    @Test func conversionRules() throws {
        let items = try ManifestStore.decode(Self.bytes).itemsByKey
        let launch = try #require(items[ItemKey(source: "launches", id: "81")])
        #expect(launch.images.map(\.variant) == ["small", "large"])
        #expect(launch.image("large")?.file == V1Fixtures.largeFile)
        #expect(launch.details == LaunchDetails(rocketName: "Falcon 9", rocketType: "FT", site: "VAFB SLC 4E"))
        #expect(launch.status == .downloaded)
        // A large patch with no outcome (the old run ended first) is a cancelled image.
        let unfinished = try #require(items[ItemKey(source: "launches", id: "93")])
        #expect(unfinished.image("large")?.status == .cancelled)
        #expect(unfinished.status == .failed)
        // `--patch-size large` in the old run: that source's image is its `large` variant.
        #expect(items[ItemKey(source: "spacex", id: "5")]?.images.map(\.variant) == ["large"])
        // An array source (its run options name an id field): `image`.
        #expect(items[ItemKey(source: "beers", id: "1")]?.images.map(\.variant) == ["image"])
        // Pixabay's default: `preview`.
        #expect(items[ItemKey(source: "pixabay", id: "100000")]?.images.map(\.variant) == ["preview"])
        // Rejected without an image URL: the listing was unusable, an item error.
        let rejected = try #require(items[ItemKey(source: "pixabay", id: "page1-index3")])
        #expect(rejected.error == "missing id")
        #expect(rejected.images.isEmpty)
        #expect(rejected.status == .rejected)
        // Rejected with an image URL: the image was refused.
        let refused = try #require(items[ItemKey(source: "pixabay", id: "100013")])
        #expect(refused.error == nil)
        #expect(refused.images.first?.status == .rejected)
        #expect(refused.status == .rejected)
        // No image at all.
        #expect(items[ItemKey(source: "launches", id: "94")]?.images.isEmpty == true)
        #expect(items[ItemKey(source: "launches", id: "94")]?.status == .noImage)
    }

    @Test func variantNamesFollowTheOldRunOptions() throws {
        let line = Array(#"{"id":"1","imageURL":"http://h/1.png","page":1,"source":"mine","status":"fresh","title":"t"}"#.utf8)
        func variant(_ options: [String: String]) throws -> String? {
            try ItemJSON.decode(line, v1: ManifestItemV1.Variants(options: options)).images.first?.variant
        }
        #expect(try variant([:]) == "preview")
        #expect(try variant(["mine.patchSize": "large"]) == "large")
        #expect(try variant(["mine.patchSize": "LARGE"]) == "large")
        #expect(try variant(["mine.patchSize": "small"]) == "small")
        #expect(try variant(["mine.idField": "id"]) == "image")
        #expect(try variant(["other.patchSize": "large"]) == "preview")
        for (source, expected) in [("launches", "small"), ("array", "image"), ("pixabay", "preview")] {
            let named = Array(String(decoding: line, as: UTF8.self).replacing("\"mine\"", with: "\"\(source)\"").utf8)
            #expect(try ItemJSON.decode(named).images.first?.variant == expected)
        }
    }

    @Test func theReaderFindsTheRunAfterTheItemsAndStreamsInKeyOrder() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.json")
        try AtomicFile.write(Self.bytes, to: path)
        let reader = try #require(try ManifestReader.open(path: path))
        #expect(reader.header.version == 1)
        #expect(reader.header.run?.options["launches.details"] == "true")  // known before the items
        var fileOrder: [String] = []
        let fd = try FileIO.open(path, O_RDONLY)
        defer { close(fd) }
        while let (item, location) = try reader.next() {
            fileOrder.append(item.id)
            // Each location names the item's pretty-printed object in the file.
            let text = try FileIO.readAt(fd, offset: location.offset, count: location.length, path: path) { Array($0) }
            #expect(text.first == UInt8(ascii: "{") && text.last == UInt8(ascii: "}"))
            #expect(try ItemJSON.decode(text, v1: reader.variants) == item)
        }
        #expect(fileOrder == ["1", "81", "93", "94", "100000", "page1-index3", "100013", "5"])
    }

    @Test func aVersion1ManifestIsConvertedInKeyOrder() async throws {
        let backend = Backends.memory()
        try await backend.save(Repository.rootHandle(state: ""), bytes: Self.bytes, options: SaveOptions())
        let said = Locked<[String]>([])
        let repository = try await Repository.openConverting(backend, state: "") { note in said.withLock { $0.append(note) } }
        #expect(said.withLock { $0 }.first?.contains("converted the version-1 manifest") == true)
        var converted: [ManifestItem] = []
        try await repository.forEachItem { converted.append($0) }
        #expect(converted == V1Fixtures.converted)
        #expect(repository.root.run?.options["launches.details"] == "true")
    }

    @Test func convertedManifestsAreWrittenAsVersion2() throws {
        let manifest = try ManifestStore.decode(Self.bytes)
        let again = try ManifestStore.decode(ManifestStore.encode(manifest))
        #expect(again.version == 2)
        #expect(again.items == V1Fixtures.converted)
        #expect(again.run == manifest.run)
    }

    @Test func version1JournalLinesAreConverted() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.journal")
        let text = V1Fixtures.journalLines.joined(separator: "\n") + "\n" + #"{"id":"9","imageURL":"http://h/9.jpg","page":1,"#
        try AtomicFile.write(Array(text.utf8), to: path)
        let read = ItemJSON.journalLines(try FileIO.read(path), v1: V1Fixtures.variants)
        let items = read.items
        #expect(items.count == 4)
        #expect(read.skipped == 1)  // the torn last line
        #expect(items[0] == V1Fixtures.converted[4])
        #expect(items[1] == ManifestItem(source: "launches", id: "94", page: 1, title: "Beach-94", lastSeen: V1Fixtures.seen))
        #expect(items[2] == ManifestItem(source: "spacex", id: "7", page: 1, title: "t", images: [
            ImageRecord(variant: "large", url: "http://127.0.0.1:36421/img/patch/7-large.png", status: .cancelled, error: "run stopped"),
        ]))
        #expect(items[3] == ManifestItem(source: "pixabay", id: "page2-index0", page: 2, title: "", error: "hit is null, not an object"))
    }

    @Test func version1ItemsWithTheirOwnLargeVariantKeepIt() throws {
        // A details large patch whose item already has a `large` image (the old run listed large
        // patches): the listing's image is kept, the details' URL not added twice.
        let line = #"{"details":{"largePatchURL":"http://h/other.png","largePatchStatus":"fresh"},"id":"1","imageURL":"http://h/l.png","page":1,"source":"s","status":"fresh","title":"t"}"#
        let item = try ItemJSON.decode(Array(line.utf8), v1: ManifestItemV1.Variants(options: ["s.patchSize": "large"]))
        #expect(item.images == [ImageRecord(variant: "large", url: "http://h/l.png", status: .fresh)])
        #expect(item.details == nil)
    }
}
