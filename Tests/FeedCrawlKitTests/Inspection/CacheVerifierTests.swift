import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("CacheVerifier")
struct CacheVerifierTests {
    /// An OUT with four good files, referenced by three items (one with two variants, one file
    /// shared by two items), saved as a version-2 manifest.
    static func makeOut(_ dir: TestDirectory) throws -> (layout: CacheLayout, items: [ManifestItem]) {
        let layout = CacheLayout(outDirectory: dir.path)
        try LocalCacheStore(layout: layout).prepare()
        func stored(_ variant: String, _ url: String, width: Int) throws -> ImageRecord {
            let bytes = ImageFixtures.png(width: width, height: 1)
            let file = CacheLayout.relativePath(forURL: url, format: .png)
            try AtomicFile.write(bytes, to: layout.absolutePath(file))
            return ImageRecord(variant: variant, url: url, status: .downloaded, file: file, bytes: Int64(bytes.count),
                               sha256: SHA256.hex(bytes), contentType: "image/png", width: width, height: 1)
        }
        let shared = try stored("preview", "http://h/shared.png", width: 9)
        let items = [
            ManifestItem(source: "s", id: "0", page: 1, images: [try stored("small", "http://h/0s.png", width: 1), try stored("large", "http://h/0l.png", width: 2)]),
            ManifestItem(source: "s", id: "1", page: 1, images: [try stored("small", "http://h/1.png", width: 3)]),
            ManifestItem(source: "s", id: "2", page: 1, images: [shared]),
            ManifestItem(source: "t", id: "2", page: 1, images: [shared]),
            ManifestItem(source: "t", id: "3", page: 1, images: [ImageRecord(variant: "preview", url: "http://h/x", status: .failed, error: "HTTP 404")]),
        ]
        try ManifestStore.save(Manifest(generatedAt: ItemFixtures.may1, items: items), outDirectory: dir.path)
        return (layout, items)
    }

    static func verify(_ dir: TestDirectory) throws -> CacheVerification {
        let snapshot = try ManifestSnapshot.load(outDirectory: dir.path)
        return try CacheVerifier.verify(snapshot, store: LocalCacheStore(layout: snapshot.layout))
    }

    @Test func aConsistentCacheIsClean() throws {
        let dir = TestDirectory()
        _ = try Self.makeOut(dir)
        let result = try Self.verify(dir)
        #expect(result.isClean)
        #expect(result.checkedFiles == 4)  // the shared file is hashed once
        #expect(result.render(.table).contains("no problems"))
    }

    @Test func findsMissingCorruptOrphanedAndInvalidPaths() throws {
        let dir = TestDirectory()
        let (layout, items) = try Self.makeOut(dir)
        let small0 = try #require(items[0].images[0].file), large0 = try #require(items[0].images[1].file)
        // Missing: one variant's file deleted.
        unlink(layout.absolutePath(large0))
        // Corrupt: same size, other bytes.
        var changed = try FileIO.read(layout.absolutePath(small0))
        changed[changed.count - 1] ^= 0xFF
        try AtomicFile.write(changed, to: layout.absolutePath(small0))
        // Orphaned: a file nobody lists, and a .part file.
        let orphan = CacheLayout.relativePath(forURL: "http://h/orphan.gif", format: .gif)
        try AtomicFile.write([1, 2, 3], to: layout.absolutePath(orphan))
        try AtomicFile.write([1], to: layout.absolutePath(orphan + ".abc.part"))
        // Invalid: a file value outside the cache's shape (a hand-edited manifest), and a size mismatch.
        var listed = items
        listed.append(ManifestItem(source: "u", id: "x", page: 1, images: [
            ImageRecord(variant: "preview", url: "http://h/p", status: .downloaded, file: "../etc/passwd"),
        ]))
        listed[1].images[0].bytes = (listed[1].images[0].bytes ?? 0) + 1
        try ManifestStore.save(Manifest(generatedAt: ItemFixtures.may1, items: listed), outDirectory: dir.path)

        let result = try Self.verify(dir)
        #expect(!result.isClean)
        #expect(result.count(.missing) == 1)
        #expect(result.count(.corrupt) == 2)
        #expect(result.count(.orphaned) == 2)
        #expect(result.count(.invalidPath) == 1)
        #expect(result.problems.first { $0.kind == .missing } == .init(kind: .missing, file: large0, items: ["s/0"]))
        let corrupt = result.problems.filter { $0.kind == .corrupt }
        #expect(corrupt.contains(.init(kind: .corrupt, file: small0, items: ["s/0"], detail: "sha256 differs from the manifest's")))
        #expect(corrupt.contains { $0.items == ["s/1"] && $0.detail?.hasPrefix("size ") == true && $0.detail?.hasSuffix("manifest says \(listed[1].images[0].bytes!)") == true })
        #expect(Set(result.problems.filter { $0.kind == .orphaned }.map(\.file)) == [orphan, orphan + ".abc.part"])
        #expect(result.problems.first { $0.kind == .invalidPath } == .init(kind: .invalidPath, file: "../etc/passwd", items: ["u/x"]))
        #expect(result.checkedFiles == 3)
        // Sorted by kind, then file.
        #expect(result.problems.map(\.kind) == [.missing, .corrupt, .corrupt, .orphaned, .orphaned, .invalidPath])

        let table = result.render(.table)
        #expect(table.contains("1 missing, 2 corrupt, 2 orphaned, 1 invalid-path"))
        let csv = result.render(.csv)
        #expect(csv.hasPrefix("kind,file,items,detail\n"))
        #expect(csv.contains("missing,\(large0),s/0,"))
    }

    /// A file two items reference is one problem naming both, whether missing or corrupt.
    @Test func aSharedFileIsOneProblemNamingEveryItem() throws {
        let dir = TestDirectory()
        let (layout, items) = try Self.makeOut(dir)
        let shared = try #require(items[2].images[0].file)
        unlink(layout.absolutePath(shared))
        var result = try Self.verify(dir)
        #expect(result.problems == [.init(kind: .missing, file: shared, items: ["s/2", "t/2"])])

        try AtomicFile.write([1, 2, 3], to: layout.absolutePath(shared))
        result = try Self.verify(dir)
        #expect(result.count(.corrupt) == 1)
        #expect(result.problems.first?.items == ["s/2", "t/2"])
        #expect(result.problems.first?.detail?.hasPrefix("size 3, manifest says") == true)
    }

    @Test func aFileThatOnlyTheJournalReferencesIsNotAnOrphan() throws {
        let dir = TestDirectory()
        let (layout, _) = try Self.makeOut(dir)
        let bytes = ImageFixtures.png(width: 5, height: 5)
        let file = CacheLayout.relativePath(forURL: "http://h/new.png", format: .png)
        try AtomicFile.write(bytes, to: layout.absolutePath(file))
        #expect(try Self.verify(dir).count(.orphaned) == 1)
        let item = ManifestItem(source: "s", id: "9", page: 1, images: [
            ImageRecord(variant: "preview", url: "http://h/new.png", status: .downloaded, file: file, bytes: Int64(bytes.count), sha256: SHA256.hex(bytes)),
        ])
        try AtomicFile.write(ItemJSON.line(item) + [0x0A], to: layout.journalPath)
        #expect(try Self.verify(dir).isClean)
    }

    @Test func aVersion1ManifestIsVerified() throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        try LocalCacheStore(layout: layout).prepare()
        // The files the old manifest names, with the sizes and digests it records where it does.
        let text = V1Fixtures.manifest
        try AtomicFile.write(Array(text.utf8), to: layout.manifestPath)
        for item in V1Fixtures.converted {
            for image in item.images {
                guard let file = image.file else { continue }
                try AtomicFile.write([UInt8](repeating: 7, count: Int(image.bytes ?? 3)), to: layout.absolutePath(file))
            }
        }
        let result = try Self.verify(dir)
        // Every digest of the fixture differs from these filler bytes: each file with a sha256 is corrupt.
        let withDigest = V1Fixtures.converted.flatMap(\.images).filter { $0.file != nil && $0.sha256 != nil }.count
        #expect(result.count(.corrupt) == withDigest)
        #expect(result.count(.missing) == 0)
        #expect(result.count(.orphaned) == 0)
        #expect(result.checkedFiles == V1Fixtures.converted.flatMap(\.images).filter { $0.file != nil }.count)
        // The large patch of launches/81 (a v1 details.largePatchFile) is checked as its own file.
        #expect(result.problems.contains { $0.file == V1Fixtures.largeFile && $0.items == ["launches/81"] })
        // And a missing one is missing.
        unlink(layout.absolutePath(V1Fixtures.beerFile))
        #expect(try Self.verify(dir).problems.first { $0.kind == .missing }?.items == ["beers/1"])
    }
}
