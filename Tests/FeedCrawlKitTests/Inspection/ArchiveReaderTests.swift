import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP
import FeedCrawlStorage
import FeedCrawlSupport

/// `feedcrawl manifest` reads an OUT as a run would (`ArchiveReader`): the archive with what an
/// unfinished run journaled included, items in the manifest's order, nothing written; an
/// earlier release's manifest (and journal) converted first.
@Suite("ArchiveReader")
struct ArchiveReaderTests {
    /// `feedcrawl manifest`'s reader of the OUT `dir`.
    static func open(_ dir: TestDirectory) async throws(ArchiveReader.OpenError) -> ArchiveReader {
        try await ArchiveReader.open(outDirectory: dir.path, objectStore: nil, network: HTTPEngine.Configuration())
    }

    /// Every item `reader` reads, in order.
    static func items(_ reader: ArchiveReader) async throws -> [ManifestItem] {
        var items: [ManifestItem] = []
        try await reader.forEachItem { items.append($0) }
        return items
    }

    /// The files under `dir`, relative to it, with their bytes.
    static func files(_ dir: TestDirectory) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        CacheCheck.walk(dir.path) { path in files[String(path.dropFirst(dir.path.count + 1))] = readWholeFile(path) }
        return files
    }

    @Test func anUnfinishedRunsJournalIsIncludedAndItemsComeInManifestOrder() async throws {
        let dir = TestDirectory()
        let backend = try Backends.folder(dir.path)
        try await ArchiveFixture.commit(backend, items: [
            ItemFixtures.item("pixabay", "1", status: .failed), ItemFixtures.item("pixabay", "2"), ItemFixtures.item("launches", "9"),
        ], run: ManifestTests.run, started: ItemFixtures.may1)
        // A later run listed page 1 of pixabay again (item 1 retried, item 3 new) and was killed.
        let unfinished = try await Repository.open(backend)
        try await ArchiveFixture.unfinished(backend, items: [
            ItemFixtures.item("pixabay", "1", status: .downloaded, title: "retried"), ItemFixtures.item("pixabay", "3"),
        ], started: ItemFixtures.may1.addingTimeInterval(3600), firstNumber: unfinished.root.nextGroup)
        let before = Self.files(dir)

        let reader = try await Self.open(dir)
        #expect(reader.adoptedPages == 1)
        #expect(reader.conversion == nil)
        let seen = try await Self.items(reader)
        #expect(seen.map { "\($0.source)/\($0.id)" } == ["launches/9", "pixabay/1", "pixabay/2", "pixabay/3"])
        #expect(seen[1].title == "retried")
        #expect(seen[1].status == .downloaded)
        // Filter and summary read the same items.
        #expect(seen.filter(ItemFilter(statuses: [.downloaded]).matches).map(\.id) == ["9", "1", "2", "3"])
        let summary = reader.summary()
        #expect(summary.items == 4)
        #expect(summary.totals.counts == ["downloaded": 4])
        #expect(summary.lastRun?.startedAt == ManifestTests.run.startedAt)
        await reader.close()
        // Nothing was written.
        #expect(Self.files(dir) == before)
    }

    @Test func aJournalAloneIsAnArchiveToInspect() async throws {
        let dir = TestDirectory()
        try await ArchiveFixture.unfinished(
            Backends.folder(dir.path), items: [ItemFixtures.item("p", "2"), ItemFixtures.item("p", "1")], started: ItemFixtures.may1)
        let reader = try await Self.open(dir)
        #expect(try await Self.items(reader).map(\.id) == ["1", "2"])
        #expect(reader.summary().generatedAt == nil, "no run has finished")
        #expect(reader.summary().items == 2)
    }

    @Test func nothingToInspectAndUnreadableArchivesAreExplained() async throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        await #expect {
            _ = try await Self.open(dir)
        } throws: { error in
            guard case ArchiveReader.OpenError.empty(let path) = error else { return false }
            return path == layout.manifestPath && "\(error)".contains("has feedcrawl run with this --out?")
        }
        // A root of no format this release reads, and nothing to fall back on: said, not taken
        // for an empty archive.
        try AtomicFile.write(Array(#"{"version":9,"generatedAt":"2024-05-01T12:00:00Z","items":[]}"#.utf8), to: layout.manifestPath)
        await #expect {
            _ = try await Self.open(dir)
        } throws: { error in
            guard case ArchiveReader.OpenError.damaged(let damage) = error else { return false }
            return damage.path == layout.manifestPath && damage.reason.contains("not a version-1 or -2 manifest")
        }
        // An earlier release's manifest with an item it cannot read: damaged, like a root that
        // does not parse (nothing was converted).
        try AtomicFile.write(Array(#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"a"}]}"#.utf8), to: layout.manifestPath)
        await #expect {
            _ = try await Self.open(dir)
        } throws: { error in
            guard case ArchiveReader.OpenError.damaged(let damage) = error else { return false }
            return damage.path == layout.manifestPath && damage.reason.contains("missing key")
        }
    }

    @Test func aVersion1OutWithAVersion1JournalIsConvertedAndRead() async throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        try AtomicFile.write(Array(V1Fixtures.manifest.utf8), to: layout.manifestPath)
        try AtomicFile.write(Array((V1Fixtures.journalLines.joined(separator: "\n") + "\n").utf8), to: layout.journalPath)
        let reader = try await Self.open(dir)
        #expect(reader.conversion?.contains("converted the version-1 manifest") == true, "\(reader.conversion ?? "")")
        let items = try await Self.items(reader)
        #expect(items.map { "\($0.source)/\($0.id)" } == [
            "beers/1", "launches/81", "launches/93", "launches/94", "pixabay/100000", "pixabay/100013", "pixabay/page1-index3",
            "pixabay/page2-index0", "spacex/5", "spacex/7",
        ])
        // The journal's spacex line is named by the old run's options (--patch-size large).
        #expect(items.last?.images.map(\.variant) == ["large"])
        // The journal's line for launches/94 replaced the manifest's (no details in it).
        #expect(items[3].details == nil)
        #expect(items == items.sorted(by: ManifestItem.stableOrder))
        // The old manifest is kept beside the new root; the old journal is gone.
        #expect(FileIO.exists(dir.file("manifest.v1.json")))
        #expect(!FileIO.exists(layout.journalPath))
    }
}
