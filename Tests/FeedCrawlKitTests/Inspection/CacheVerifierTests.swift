import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlStorage

@Suite("CacheVerifier")
struct CacheVerifierTests {
    /// An OUT with four good files, referenced by three items (one with two variants, one file
    /// shared by two items), committed as a run commits them (`tamper` may change the items'
    /// records first).
    static func makeOut(
        _ dir: TestDirectory, tamper: (inout [ManifestItem]) -> Void = { _ in }
    ) async throws -> (layout: CacheLayout, items: [ManifestItem]) {
        let layout = CacheLayout(outDirectory: dir.path)
        func stored(_ variant: String, _ url: String, width: Int) throws -> ImageRecord {
            let bytes = ImageFixtures.png(width: width, height: 1)
            let file = CacheLayout.relativePath(forURL: url, format: .png)
            try writeFile(bytes, to: layout.absolutePath(file))
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
        var committed = items
        tamper(&committed)
        try await ArchiveFixture.commit(Backends.folder(dir.path), items: committed)
        return (layout, items)
    }

    /// `feedcrawl manifest --verify` of the OUT `dir`.
    static func verify(_ dir: TestDirectory) async throws -> CacheVerification {
        try await verifyCache(dir.path)
    }

    @Test func aConsistentCacheIsClean() async throws {
        let dir = TestDirectory()
        _ = try await Self.makeOut(dir)
        let result = try await Self.verify(dir)
        #expect(result.isClean)
        #expect(result.checkedFiles == 4)  // the shared file is hashed once
        #expect(result.render(.table).contains("no problems"))
    }

    /// (A `file` value outside the cache's shape, which only a hand-edited manifest of an earlier
    /// release can hold, names no file: the file index, which verify reads, has only cache names.)
    @Test func findsMissingCorruptAndOrphaned() async throws {
        let dir = TestDirectory()
        // A record whose size is not its file's.
        let (layout, items) = try await Self.makeOut(dir) { $0[1].images[0].bytes = ($0[1].images[0].bytes ?? 0) + 1 }
        let small0 = try #require(items[0].images[0].file), large0 = try #require(items[0].images[1].file)
        // Missing: one variant's file deleted.
        unlink(layout.absolutePath(large0))
        // Corrupt: same size, other bytes.
        var changed = try FileIO.read(layout.absolutePath(small0))
        changed[changed.count - 1] ^= 0xFF
        try AtomicFile.write(changed, to: layout.absolutePath(small0))
        // Orphaned: a file nobody lists, and a staged body a killed run left.
        let orphan = CacheLayout.relativePath(forURL: "http://h/orphan.gif", format: .gif)
        try writeFile([1, 2, 3], to: layout.absolutePath(orphan))
        let staged = String(orphan.dropLast(".gif".count)) + ".0123456789ab.part"
        try writeFile([1], to: layout.absolutePath(staged))

        let result = try await Self.verify(dir)
        #expect(!result.isClean)
        #expect(result.count(.missing) == 1)
        #expect(result.count(.corrupt) == 2)
        #expect(result.count(.orphaned) == 2)
        #expect(result.problems.first { $0.kind == .missing } == .init(kind: .missing, file: large0, items: ["s/0"]))
        let corrupt = result.problems.filter { $0.kind == .corrupt }
        #expect(corrupt.contains(.init(kind: .corrupt, file: small0, items: ["s/0"], detail: "sha256 differs from the manifest's")))
        #expect(corrupt.contains { $0.items == ["s/1"] && $0.detail?.hasPrefix("size ") == true && $0.detail?.hasSuffix("manifest says \(items[1].images[0].bytes! + 1)") == true })
        #expect(Set(result.problems.filter { $0.kind == .orphaned }.map(\.file)) == [orphan, staged])
        #expect(result.checkedFiles == 3)
        // Sorted by kind, then file.
        #expect(result.problems.map(\.kind) == [.missing, .corrupt, .corrupt, .orphaned, .orphaned])

        let table = result.render(.table)
        #expect(table.contains("1 missing, 2 corrupt, 2 orphaned"))
        let csv = result.render(.csv)
        #expect(csv.hasPrefix("kind,file,items,detail\n"))
        #expect(csv.contains("missing,\(large0),s/0,"))
    }

    /// A file two items reference is one problem, whether missing or corrupt, naming the item
    /// that holds the file's newest record (the file index's).
    @Test func aSharedFileIsOneProblem() async throws {
        let dir = TestDirectory()
        let (layout, items) = try await Self.makeOut(dir)
        let shared = try #require(items[2].images[0].file)
        unlink(layout.absolutePath(shared))
        var result = try await Self.verify(dir)
        #expect(result.problems.count == 1)
        #expect(result.problems.first?.kind == .missing && result.problems.first?.file == shared)
        #expect(result.problems.first.map { $0.items == ["s/2"] || $0.items == ["t/2"] } == true)

        try AtomicFile.write([1, 2, 3], to: layout.absolutePath(shared))
        result = try await Self.verify(dir)
        #expect(result.count(.corrupt) == 1)
        #expect(result.problems.count == 1)
        #expect(result.problems.first?.detail?.hasPrefix("size 3, manifest says") == true)
    }

    @Test func aFileThatOnlyAnUnfinishedRunsJournalNamesIsNotAnOrphan() async throws {
        let dir = TestDirectory()
        let (layout, _) = try await Self.makeOut(dir)
        let bytes = ImageFixtures.png(width: 5, height: 5)
        let file = CacheLayout.relativePath(forURL: "http://h/new.png", format: .png)
        try writeFile(bytes, to: layout.absolutePath(file))
        #expect(try await Self.verify(dir).count(.orphaned) == 1)
        let item = ManifestItem(source: "s", id: "9", page: 2, images: [
            ImageRecord(variant: "preview", url: "http://h/new.png", status: .downloaded, file: file, bytes: Int64(bytes.count), sha256: SHA256.hex(bytes)),
        ])
        let backend = try Backends.folder(dir.path)
        let next = try await Repository.open(backend).root.nextGroup
        try await ArchiveFixture.unfinished(backend, items: [item], started: Date(), firstNumber: next)
        #expect(try await Self.verify(dir).isClean)
    }

    @Test func aVersion1ManifestIsConvertedAndVerified() async throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        // The files the old manifest names, with the sizes and digests it records where it does.
        let text = V1Fixtures.manifest
        try AtomicFile.write(Array(text.utf8), to: layout.manifestPath)
        for item in V1Fixtures.converted {
            for image in item.images {
                guard let file = image.file else { continue }
                try writeFile([UInt8](repeating: 7, count: Int(image.bytes ?? 3)), to: layout.absolutePath(file))
            }
        }
        let result = try await Self.verify(dir)
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
        #expect(try await Self.verify(dir).problems.first { $0.kind == .missing }?.items == ["beers/1"])
    }
}
