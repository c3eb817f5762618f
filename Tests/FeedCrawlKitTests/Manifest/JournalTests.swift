#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Journal")
struct JournalTests {
    static func item(_ id: Int, status: ItemStatus = .downloaded) -> ManifestItem {
        ManifestItem(source: "pixabay", id: "\(id)", page: 1 + id / 20, title: "item \(id)\nwith newline",
                     imageURL: "https://cdn.example/\(id).jpg", status: status, fetchedAt: ManifestTests.may1)
    }

    func lines(_ path: String) throws -> [String] {
        String(decoding: try FileIO.read(path), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func appendBuffersUntilFlush() throws {
        let dir = TestDirectory()
        let journal = try Journal(outDirectory: dir.path)
        #expect(journal.path == dir.file("manifest.journal"))
        try journal.append(Self.item(1))
        try journal.append(Self.item(2))
        #expect(journal.pendingCount == 2)
        #expect(try FileIO.read(journal.path).isEmpty)
        try journal.flush()
        #expect(journal.pendingCount == 0)
        let written = try lines(journal.path)
        #expect(written.count == 2)  // the newline inside the title is escaped
        #expect(try Journal.load(path: journal.path) == [Self.item(1), Self.item(2)])
        try journal.append(Self.item(3))
        try journal.close()
        #expect(try Journal.load(path: journal.path).map(\.id) == ["1", "2", "3"])
    }

    @Test func flushPolicy() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("j"), policy: .init(maxItems: 3, maxDelay: .milliseconds(200)))
        let t0 = ContinuousClock.now
        #expect(!journal.needsFlush(now: t0 + .seconds(60)))  // nothing buffered
        try journal.append(Self.item(1), now: t0)
        try journal.append(Self.item(2), now: t0 + .milliseconds(150))
        #expect(!journal.needsFlush(now: t0 + .milliseconds(199)))
        #expect(journal.needsFlush(now: t0 + .milliseconds(200)))  // the oldest item's age counts
        try journal.append(Self.item(3), now: t0 + .milliseconds(160))
        #expect(journal.needsFlush(now: t0 + .milliseconds(160)))  // count reached
        #expect(try journal.flushIfNeeded(now: t0 + .milliseconds(160)))
        #expect(!journal.needsFlush(now: t0 + .seconds(10)))
        #expect(try !journal.flushIfNeeded(now: t0 + .seconds(10)))
        try journal.append(Self.item(4), now: t0 + .seconds(11))
        #expect(!journal.needsFlush(now: t0 + .seconds(11) + .milliseconds(10)))
        #expect(Journal.FlushPolicy() == .init(maxItems: 32, maxDelay: .milliseconds(200)))
    }

    @Test func loadSkipsTornAndGarbageLines() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.journal")
        let encoder = ManifestCoding.compactEncoder()
        var bytes = [UInt8]()
        bytes += try encoder.encode(Self.item(1)) + [0x0A]
        bytes += Array("not json at all\n\n   \n".utf8)
        bytes += Array(#"{"source":"pixabay","id":"x"}"#.utf8) + [0x0A]  // valid JSON, not an item
        bytes += try encoder.encode(Self.item(2)) + [0x0A]
        bytes += [0xFF, 0xFE, 0x00, 0x0A]
        let third = try encoder.encode(Self.item(3))
        bytes += third.prefix(third.count / 2)  // torn last line, no newline
        try AtomicFile.write(bytes, to: path)

        let contents = try Journal.read(path: path)
        #expect(contents.items == [Self.item(1), Self.item(2)])
        #expect(contents.skippedLines == 4)

        // Reopening repairs the torn tail so the next line is intact.
        let journal = try Journal(path: path)
        try journal.append(Self.item(4))
        try journal.flush()
        #expect(try Journal.load(path: path) == [Self.item(1), Self.item(2), Self.item(4)])
    }

    @Test func missingFileAndRemove() throws {
        let dir = TestDirectory()
        #expect(try Journal.load(path: dir.file("nope")) == [])
        let journal = try Journal(outDirectory: dir.path)
        try journal.append(Self.item(1))
        try journal.flush()
        try journal.remove()
        #expect(!FileIO.exists(journal.path))
        #expect(try Journal.load(path: journal.path) == [])
        try Journal.remove(path: journal.path)  // already gone: fine
        try journal.flush()  // nothing buffered: nothing to do
        try journal.append(Self.item(2))
        #expect(throws: FileSystemError.self) { try journal.flush() }  // closed by remove()
    }

    @Test func deinitWritesBufferedLines() throws {
        let dir = TestDirectory()
        let path = dir.file("j")
        do {
            let journal = try Journal(path: path)
            try journal.append(Self.item(7))
        }
        #expect(try Journal.load(path: path) == [Self.item(7)])
    }

    @Test func foldingJournalIntoManifest() throws {
        let dir = TestDirectory()
        let manifest = Manifest(generatedAt: ManifestTests.may1, items: [Self.item(1, status: .failed), Self.item(2)])
        let journal = try Journal(outDirectory: dir.path)
        try journal.append(Self.item(1, status: .cancelled))
        try journal.append(Self.item(3))
        try journal.append(Self.item(1, status: .downloaded))
        try journal.flush()
        let folded = manifest.folding(try Journal.load(path: journal.path))
        #expect(folded.items.map(\.id) == ["1", "2", "3"])
        #expect(folded.items.map(\.status) == [.downloaded, .downloaded, .downloaded])
    }

    @Test func concurrentAppendsAreAllKept() async throws {
        let dir = TestDirectory()
        let journal = try Journal(outDirectory: dir.path, policy: .init(maxItems: 8))
        await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for n in 0..<50 {
                        try journal.append(Self.item(worker * 1000 + n))
                        try journal.flushIfNeeded()
                    }
                }
            }
        }
        try journal.flush()
        let ids = Set(try Journal.load(path: journal.path).map(\.id))
        #expect(ids.count == 200)
        #expect(try Journal.read(path: journal.path).skippedLines == 0)
    }
}
