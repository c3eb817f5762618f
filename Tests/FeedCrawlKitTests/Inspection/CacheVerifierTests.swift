import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit

@Suite("CacheVerifier")
struct CacheVerifierTests {
    /// A cache with three good files, and items referencing them.
    static func makeCache(_ dir: TestDirectory) throws -> (CacheLayout, [ManifestItem]) {
        let layout = CacheLayout(outDirectory: dir.path)
        try layout.createFanOutDirectories()
        var items: [ManifestItem] = []
        for index in 0..<3 {
            let url = "http://h/\(index).png"
            let bytes = ImageFixtures.png(width: index + 1, height: 1)
            let file = CacheLayout.relativePath(forURL: url, format: .png)
            try AtomicFile.write(bytes, to: layout.absolutePath(file))
            items.append(ManifestItem(
                source: "s", id: String(index), page: 1, title: "", imageURL: url, status: .downloaded,
                file: file, bytes: Int64(bytes.count), sha256: SHA256.hex(bytes)))
        }
        return (layout, items)
    }

    @Test func aConsistentCacheIsClean() throws {
        let dir = TestDirectory()
        let (layout, items) = try Self.makeCache(dir)
        let result = CacheVerifier.verify(Manifest(generatedAt: Date(), items: items), layout: layout)
        #expect(result.isClean)
        #expect(result.checkedFiles == 3)
        #expect(result.render(.table).contains("no problems"))
    }

    @Test func findsMissingCorruptOrphanedAndInvalidPaths() throws {
        let dir = TestDirectory()
        let (layout, items) = try Self.makeCache(dir)
        var listed = items
        // Missing: delete a file.
        unlink(layout.absolutePath(try #require(items[0].file)))
        // Corrupt: same size, different bytes.
        var changed = ImageFixtures.png(width: 2, height: 1)
        changed[changed.count - 1] ^= 0xFF
        try AtomicFile.write(changed, to: layout.absolutePath(try #require(items[1].file)))
        // Orphaned: a file nobody lists, and a .part file.
        let orphan = CacheLayout.relativePath(forURL: "http://h/orphan.gif", format: .gif)
        try AtomicFile.write([1, 2, 3], to: layout.absolutePath(orphan))
        try AtomicFile.write([1], to: layout.absolutePath(orphan + ".abc.part"))
        // Invalid: a path outside the cache's shape.
        listed.append(ManifestItem(
            source: "s", id: "x", page: 1, title: "", imageURL: nil, status: .downloaded, file: "../etc/passwd"))

        let result = CacheVerifier.verify(Manifest(generatedAt: Date(), items: listed), layout: layout)
        #expect(!result.isClean)
        #expect(result.count(.missing) == 1)
        #expect(result.count(.corrupt) == 1)
        #expect(result.count(.orphaned) == 2)
        #expect(result.count(.invalidPath) == 1)
        #expect(result.problems.first { $0.kind == .missing }?.items == ["s/0"])
        #expect(result.problems.first { $0.kind == .corrupt }?.detail == "sha256 differs from the manifest's")
        #expect(Set(result.problems.filter { $0.kind == .orphaned }.map(\.file)) == [orphan, orphan + ".abc.part"])
        #expect(result.checkedFiles == 2)

        let table = result.render(.table)
        #expect(table.contains("1 missing, 1 corrupt, 2 orphaned, 1 invalid-path"))
        let csv = result.render(.csv)
        #expect(csv.hasPrefix("kind,file,items,detail\n"))
        #expect(csv.contains("missing,\(try #require(items[0].file)),s/0,"))
    }

    @Test func aSizeMismatchIsCorrupt() throws {
        let dir = TestDirectory()
        let (layout, items) = try Self.makeCache(dir)
        var listed = items
        listed[2].bytes = (listed[2].bytes ?? 0) + 1
        let result = CacheVerifier.verify(Manifest(generatedAt: Date(), items: listed), layout: layout)
        #expect(result.count(.corrupt) == 1)
        #expect(result.problems.first?.detail?.hasPrefix("size ") == true)
    }
}
