import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// `feedcrawl manifest` reads an OUT as a run would: the manifest with a killed run's journal
/// folded in, streamed, nothing written.
@Suite("ManifestSnapshot")
struct ManifestSnapshotTests {
    static func writeJournal(_ items: [ManifestItem], torn: Bool = false, in dir: TestDirectory) throws {
        var bytes: [UInt8] = []
        for item in items { bytes += ItemJSON.line(item) + [0x0A] }
        if torn { bytes += Array(ItemJSON.line(items[0]).prefix(20)) }
        try AtomicFile.write(bytes, to: CacheLayout(outDirectory: dir.path).journalPath)
    }

    @Test func theJournalIsFoldedInAndItemsComeInManifestOrder() throws {
        let dir = TestDirectory()
        let manifest = Manifest(generatedAt: ItemFixtures.may1, run: ManifestTests.run, items: [
            ItemFixtures.item("pixabay", "1", status: .failed), ItemFixtures.item("pixabay", "2"), ItemFixtures.item("launches", "9"),
        ])
        try ManifestStore.save(manifest, outDirectory: dir.path)
        try Self.writeJournal([
            ItemFixtures.item("pixabay", "1", status: .cancelled, title: "first try"),
            ItemFixtures.item("pixabay", "3"),
            ItemFixtures.item("pixabay", "1", status: .downloaded, title: "retried"),  // later line wins
        ], torn: true, in: dir)
        let before = try FileIO.read(dir.file("manifest.json"))
        let snapshot = try ManifestSnapshot.load(outDirectory: dir.path)
        #expect(snapshot.journalItems == 2)
        #expect(snapshot.header.version == 2)
        var seen: [ManifestItem] = []
        let header = try snapshot.forEachItem { seen.append($0) }
        #expect(seen.map { "\($0.source)/\($0.id)" } == ["launches/9", "pixabay/1", "pixabay/2", "pixabay/3"])
        #expect(seen[1].title == "retried")
        #expect(seen[1].status == .downloaded)
        #expect(header.run == ManifestTests.run)  // read after the items
        let whole = try snapshot.manifest()
        #expect(whole.items == seen)
        #expect(whole.run == ManifestTests.run)
        // Nothing was written.
        #expect(try FileIO.read(dir.file("manifest.json")) == before)
        #expect(FileIO.exists(CacheLayout(outDirectory: dir.path).journalPath))
        // Filter and summary read the same items.
        #expect(try snapshot.manifest().items.filter(ItemFilter(statuses: [.downloaded]).matches).map(\.id) == ["9", "1", "2", "3"])
        let summary = try ManifestSummary(snapshot)
        #expect(summary.items == 4)
        #expect(summary.lastRun == ManifestTests.run)
        #expect(summary == ManifestSummary(whole))
    }

    @Test func aJournalAloneIsAManifestToInspect() throws {
        let dir = TestDirectory()
        try Self.writeJournal([ItemFixtures.item("p", "2"), ItemFixtures.item("p", "1")], in: dir)
        let snapshot = try ManifestSnapshot.load(outDirectory: dir.path)
        #expect(try snapshot.manifest().items.map(\.id) == ["1", "2"])
        #expect(snapshot.header.version == Manifest.currentVersion)
    }

    @Test func nothingToInspectAndUnreadableManifestsAreExplained() throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        #expect {
            _ = try ManifestSnapshot.load(outDirectory: dir.path)
        } throws: { error in
            guard case ManifestSnapshot.LoadError.notFound(let path) = error else { return false }
            return path == layout.manifestPath && "\(error)".contains("has feedcrawl run with this --out?")
        }
        try AtomicFile.write(Array(#"{"version":9,"generatedAt":"2024-05-01T12:00:00Z","items":[]}"#.utf8), to: layout.manifestPath)
        #expect {
            _ = try ManifestSnapshot.load(outDirectory: dir.path)
        } throws: { error in
            guard case ManifestSnapshot.LoadError.unreadable(let reason) = error else { return false }
            return reason.contains(layout.manifestPath) && reason.contains("unsupported manifest version 9")
        }
        // A corrupt item is reported when it is read.
        try AtomicFile.write(Array(#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"a"}]}"#.utf8), to: layout.manifestPath)
        let snapshot = try ManifestSnapshot.load(outDirectory: dir.path)
        #expect(throws: ManifestStore.Error.self) { try snapshot.forEachItem { _ in } }
    }

    @Test func aVersion1OutWithAVersion1JournalIsRead() throws {
        let dir = TestDirectory()
        let layout = CacheLayout(outDirectory: dir.path)
        try AtomicFile.write(Array(V1Fixtures.manifest.utf8), to: layout.manifestPath)
        try AtomicFile.write(Array((V1Fixtures.journalLines.joined(separator: "\n") + "\n").utf8), to: layout.journalPath)
        let snapshot = try ManifestSnapshot.load(outDirectory: dir.path)
        #expect(snapshot.header.version == 1)
        #expect(snapshot.journalItems == 4)
        let items = try snapshot.manifest().items
        #expect(items.map { "\($0.source)/\($0.id)" } == [
            "beers/1", "launches/81", "launches/93", "launches/94", "pixabay/100000", "pixabay/100013", "pixabay/page1-index3",
            "pixabay/page2-index0", "spacex/5", "spacex/7",
        ])
        // The journal's spacex line is named by the old run's options (--patch-size large).
        #expect(items.last?.images.map(\.variant) == ["large"])
        // The journal's line for launches/94 replaced the manifest's (no details in it).
        #expect(items[3].details == nil)
        #expect(items == items.sorted(by: ManifestItem.stableOrder))
    }
}

extension ManifestSnapshot {
    /// Every item in memory.
    func manifest() throws -> Manifest {
        var items: [ManifestItem] = []
        let header = try forEachItem { items.append($0) }
        return Manifest(header: header, items: items)
    }
}
