import FoundationEssentials
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

/// The crawler writes `OUT/index.html` streamed as the manifest is written (each item's tile
/// rendered then and kept in a `ContactSheet.Index`, sorted by page, copied out in that order):
/// the page must be the one `ContactSheet.html` makes from the whole manifest in memory.
@Suite("Contact sheet written as the manifest is written")
struct ContactSheetWriteTests {
    static func randomManifest(_ count: Int, seed: UInt64) -> Manifest {
        var random = TestRandom(seed: seed)
        let sources = ["pixabay", "launches", "array", "flowers", "b-side"]
        var items: [ManifestItem] = []
        for n in 0..<count {
            var images: [ImageRecord] = []
            for variant in ["preview", "webformat", "large"].prefix(random.int(0..<4)) {
                images.append(random.chance(0.7)
                    ? ContactSheetTests.stored(variant, random.int(0..<9999), status: random.pick([.downloaded, .fresh, .revalidated]))
                    : ContactSheetTests.failed(variant, random.pick(["HTTP 404", "<b>x</b>", ItemFixtures.nasty]), status: random.pick([.failed, .cancelled, .rejected])))
            }
            let id = random.chance(0.7) ? String(random.int(0..<100_000)) + "-\(n)" : String(n)
            items.append(ContactSheetTests.item(
                random.pick(sources), id, page: random.int(1..<12), title: ItemFixtures.string(&random, maxPieces: 4),
                author: random.chance(0.5) ? ItemFixtures.string(&random, maxPieces: 2) : nil,
                pageURL: random.pick([nil, "https://pixabay.com/photos/x-\(n)/", "javascript:alert(\(n))"]),
                error: random.chance(0.05) ? "missing id" : nil,
                seen: random.chance(0.8) ? ContactSheetTests.runStart : ContactSheetTests.runStart.addingTimeInterval(-86_400),
                images))
        }
        return ContactSheetTests.manifest(items, options: ["flowers.type": "pixabay", "b-side.type": "array"])
    }

    /// Saves `manifest` in `dir` as the crawler does (one `ManifestWriter`, each line added to an
    /// index as it is written), then writes its contact sheet.
    static func saveAndWriteSheet(_ manifest: Manifest, in dir: TestDirectory, spill: Spill?) throws {
        let index = ContactSheet.Index(spill: spill, run: manifest.run)
        try save(manifest, in: dir, adding: index)
        try ContactSheet.write(index: index, manifestPath: CacheLayout(outDirectory: dir.path).manifestPath, outDirectory: dir.path)
    }

    /// Saves `manifest` in `dir` as the crawler does, each line added to `index` as it is written.
    static func save(_ manifest: Manifest, in dir: TestDirectory, adding index: ContactSheet.Index) throws {
        try AtomicFile.stream(to: CacheLayout(outDirectory: dir.path).manifestPath) { (out: inout AtomicFileStream) throws(FileSystemError) in
            var writer = ManifestWriter(generatedAt: manifest.generatedAt)
            for item in manifest.sortedItems {
                try writer.append(item, to: &out)
                index.add(item)
            }
            try writer.finish(run: manifest.run, to: &out)
        }
    }

    static func written(_ manifest: Manifest, spill: Bool) throws -> (String, TestDirectory) {
        let dir = TestDirectory()
        try saveAndWriteSheet(manifest, in: dir, spill: spill ? Spill(directory: dir.path) : nil)
        return (String(decoding: try FileIO.read(dir.file(ContactSheet.fileName)), as: UTF8.self), dir)
    }

    @Test(arguments: [(0, UInt64(1)), (1, 2), (300, 3), (2000, 4)])
    func theStreamedPageEqualsTheInMemoryPage(count: Int, seed: UInt64) throws {
        let manifest = Self.randomManifest(count, seed: seed)
        let (html, dir) = try Self.written(manifest, spill: false)
        let pages = ContactSheet.pages(manifest)
        #expect(html == pages[0])
        #expect(count <= ContactSheet.itemsPerPage ? pages.count == 1 : pages.count >= 2)
        for (index, page) in pages.enumerated().dropFirst() {
            #expect(String(decoding: try FileIO.read(dir.file(ContactSheet.fileName(page: index + 1))), as: UTF8.self) == page)
        }
        // No temporary left.
        #expect(TestDirectory.list(dir.path) == ((2...max(2, pages.count + 1)).dropLast().map { ContactSheet.fileName(page: $0) }
            + [ContactSheet.fileName, CacheLayout.manifestFileName]).sorted())
    }

    @Test func moreItemsThanOneSortedRunSpillAndStillMatch() throws {
        let manifest = Self.randomManifest(ItemSorter.defaultChunkSize + 1500, seed: 9)
        let (html, _) = try Self.written(manifest, spill: true)
        #expect(html == ContactSheet.html(manifest))
    }

    @Test func aVersion1ManifestIsRenderedAsItsConversion() throws {
        let converted = try ManifestStore.decode(Array(V1Fixtures.manifest.utf8))
        let (html, _) = try Self.written(converted, spill: false)
        #expect(html == ContactSheet.html(converted))
        #expect(html.contains("<a href=\"\(V1Fixtures.largeFile)\">large</a>"))  // details.largePatchFile, linked
    }

    /// Tiles are kept in a scratch file, or in memory without one; each reads back as it was put.
    @Test(arguments: [false, true])
    func tilesReadBackFromTheSpillOrMemory(spill: Bool) throws {
        let dir = TestDirectory()
        let store = ContactSheet.TileStore(spill: spill ? Spill(directory: dir.path) : nil)
        let texts = ["<figure>a</figure>", "<figure>é ✓</figure>", String(repeating: "x", count: 70_000), "<figure>b</figure>"]
        let locations = texts.map(store.put)
        #expect(locations.map { store.read($0) } == texts)
        #expect(locations.allSatisfy { ($0.offset >= ContactSheet.TileStore.memoryBase) == !spill })
    }

    /// A full disk while tiles are written: those pending and every later one stay in memory,
    /// and every tile still reads back as it was put.
    @Test func aFullDiskKeepsTheTilesInMemory() throws {
        let dir = TestDirectory()
        let store = ContactSheet.TileStore(spill: Spill(directory: dir.path))
        WriteFaults.arm(directory: dir.path, allowBytes: 100_000)
        defer { WriteFaults.disarm(directory: dir.path) }
        let texts = (0..<400).map { "<figure>\($0) " + String(repeating: "t", count: 500) + "</figure>" }
        let locations = texts.map(store.put)
        #expect(locations.map { store.read($0) } == texts)
        #expect(locations.contains { $0.offset >= ContactSheet.TileStore.memoryBase })  // the disk did fill
        #expect(locations.first.map { $0.offset < ContactSheet.TileStore.memoryBase } == true)
    }

    @Test func anExistingPageIsReplacedAndNoManifestWritesNothing() throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        try ContactSheet.write(index: ContactSheet.Index(spill: nil, run: nil), manifestPath: layout.manifestPath, outDirectory: dir.path)
        #expect(TestDirectory.list(dir.path).isEmpty)
        try AtomicFile.write(Array("old".utf8), to: dir.file(ContactSheet.fileName))
        let manifest = Self.randomManifest(20, seed: 5)
        try Self.saveAndWriteSheet(manifest, in: dir, spill: nil)
        #expect(String(decoding: try FileIO.read(dir.file(ContactSheet.fileName)), as: UTF8.self) == ContactSheet.html(manifest))
        #expect(TestDirectory.list(dir.path) == [ContactSheet.fileName, CacheLayout.manifestFileName])
    }
}

extension ContactSheetWriteTests {
    /// Source names the configuration would refuse can still come from a hand-edited manifest:
    /// canonically equivalent names (`é` and `e` + combining accent) are different sources.
    @Test func sourceNamesAreComparedByTheirBytes() throws {
        let items = ["é", "e\u{301}", "f", "Z", "é"].enumerated().map { n, source in
            ContactSheetTests.item(source, String(n), page: n % 2 + 1, [ContactSheetTests.stored("preview", n)])
        }
        let manifest = ContactSheetTests.manifest(items)
        let (html, _) = try Self.written(manifest, spill: false)
        #expect(html == ContactSheet.html(manifest))
        #expect(html.components(separatedBy: "<section ").count - 1 == 4)
    }
}
