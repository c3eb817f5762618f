#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

@Suite("Journal")
struct JournalTests {
    static func item(_ id: Int, status: ItemStatus = .downloaded) -> ManifestItem {
        var item = ItemFixtures.item("pixabay", "\(id)", page: 1 + id / 20, status: status, title: "item \(id)\nwith newline")
        item.lastSeen = ItemFixtures.may1
        return item
    }

    static func lines(_ path: String) throws -> [[UInt8]] {
        try FileIO.read(path).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    }

    static func readAll(_ path: String) throws -> (items: [ManifestItem], skipped: Int) {
        var items: [ManifestItem] = []
        let counts = try Journal.read(path: path) { item, _ in items.append(item) }
        #expect(counts.items == items.count)
        return (items, counts.skipped)
    }

    static func line(_ journal: Journal, _ location: ItemLocation) throws -> [UInt8] {
        try journal.withLine(at: location) { Array($0) }
    }

    @Test func appendBuffersUntilFlushThenOneLinePerItem() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("manifest.journal"))
        let first = journal.append(Self.item(1))
        let second = journal.append(Self.item(2))
        #expect(journal.pendingCount == 2)
        #expect(try FileIO.read(journal.path).isEmpty)
        // Buffered lines read back before they are written.
        #expect(try Self.line(journal, first) == ItemJSON.line(Self.item(1)))
        #expect(try Self.line(journal, second) == ItemJSON.line(Self.item(2)))
        try journal.flush()
        #expect(journal.pendingCount == 0)
        // One line per item (the newline in the title is escaped), ItemJSON's text exactly.
        #expect(try Self.lines(journal.path) == [ItemJSON.line(Self.item(1)), ItemJSON.line(Self.item(2)), []])
        #expect(first == ItemLocation(offset: 0, length: ItemJSON.line(Self.item(1)).count))
        #expect(second.offset == Int64(first.length + 1))
        #expect(try Self.line(journal, first) == ItemJSON.line(Self.item(1)))
        #expect(try Self.line(journal, second) == ItemJSON.line(Self.item(2)))
        #expect(try journal.line(startingAt: second.offset) == ItemJSON.line(Self.item(2)))
        #expect(try Self.readAll(journal.path).items == [Self.item(1), Self.item(2)])
        try journal.flush()  // nothing buffered: nothing written
        #expect(try Self.lines(journal.path).count == 3)
    }

    @Test func aFlushIsDueAfter32Lines() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("j"))
        #expect(!journal.flushIsDue)
        for n in 0..<32 { journal.append(Self.item(n)) }
        #expect(journal.flushIsDue)
        try journal.flush()
        #expect(!journal.flushIsDue)
    }

    @Test func reopeningAppendsAfterTheFileAndRepairsATornTail() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.journal")
        let torn = Array(ItemJSON.line(Self.item(3)).prefix(25))
        try AtomicFile.write(ItemJSON.line(Self.item(1)) + [0x0A] + torn, to: path)
        let journal = try Journal(path: path)
        let location = journal.append(Self.item(4))
        // A newline is queued first, so the new line starts on its own.
        #expect(location.offset == Int64(ItemJSON.line(Self.item(1)).count + 1 + torn.count + 1))
        #expect(try Self.line(journal, location) == ItemJSON.line(Self.item(4)))
        try journal.flush()
        #expect(try Self.line(journal, location) == ItemJSON.line(Self.item(4)))
        let contents = try Self.readAll(path)
        #expect(contents.items == [Self.item(1), Self.item(4)])
        #expect(contents.skipped == 1)
    }

    @Test func tornAndGarbageLinesAreSkippedAndCounted() throws {
        let dir = TestDirectory()
        let path = dir.file("manifest.journal")
        var bytes = ItemJSON.line(Self.item(1)) + [0x0A]
        bytes += Array("not json at all\n\n   \n\t\r\n".utf8)
        bytes += Array(#"{"source":"pixabay","id":"x"}"#.utf8) + [0x0A]  // valid JSON, not an item
        bytes += ItemJSON.line(Self.item(2)) + [0x0A]
        bytes += [0xFF, 0xFE, 0x00, 0x0A]
        let third = ItemJSON.line(Self.item(3))
        bytes += third.prefix(third.count / 2)  // torn last line, no newline
        try AtomicFile.write(bytes, to: path)
        var locations: [ItemLocation] = []
        var items: [ManifestItem] = []
        let counts = try Journal.read(path: path) { item, location in
            items.append(item)
            locations.append(location)
        }
        #expect(items == [Self.item(1), Self.item(2)])
        #expect(counts.skipped == 4)
        // Locations point at the lines.
        for (item, location) in zip(items, locations) {
            #expect(Array(bytes[Int(location.offset)..<(Int(location.offset) + location.length)]) == ItemJSON.line(item))
        }
    }

    @Test func longLinesAndManyLinesCrossTheReadBuffer() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("j"))
        var expected: [(ManifestItem, ItemLocation)] = []
        for n in 0..<1500 {
            var item = Self.item(n)
            item.title = String(repeating: "é", count: n % 7 == 0 ? 400 : 40)
            if n == 700 { item.title = String(repeating: "x", count: 600 << 10) }  // longer than the 256 KiB buffer
            expected.append((item, journal.append(item)))
            if n % 100 == 0 { try journal.flush() }
        }
        try journal.flush()
        var index = 0
        try Journal.read(path: journal.path) { item, location in
            #expect(item == expected[index].0, "line \(index)")
            #expect(location == expected[index].1, "line \(index)")
            index += 1
        }
        #expect(index == 1500)
        #expect(try journal.line(startingAt: expected[700].1.offset).count == expected[700].1.length)
    }

    @Test func missingFileAndRemove() throws {
        let dir = TestDirectory()
        #expect(try Self.readAll(dir.file("nope")).items.isEmpty)
        let journal = try Journal(path: dir.file("manifest.journal"))
        journal.append(Self.item(1))
        try journal.flush()
        try journal.remove()
        #expect(!FileIO.exists(journal.path))
        #expect(journal.pendingCount == 0)
        try FileIO.remove(journal.path)  // already gone: fine
        journal.append(Self.item(2))
        #expect(throws: FileSystemError.self) { try journal.flush() }  // closed by remove()
    }

    @Test func appendsGoOnWhileFlushesWriteAndEveryLineStaysReadable() async throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("manifest.journal"))
        let locations = Locked<[Int: ItemLocation]>([:])
        let stop = Locked(false)
        await withTaskGroup(of: Void.self) { group in
            // A flusher, as the commit thread runs it.
            group.addTask {
                while !stop.withLock({ $0 }) { try? journal.flush() }
            }
            for worker in 0..<4 {
                group.addTask {
                    for n in 0..<300 {
                        let id = worker * 1000 + n
                        let location = journal.append(Self.item(id))
                        locations.withLock { $0[id] = location }
                        // Read back at once: buffered, being written or written, it is there.
                        let line = try? journal.withLine(at: location) { Array($0) }
                        #expect(line == ItemJSON.line(Self.item(id)), "item \(id)")
                        // And an earlier one of this worker.
                        if n > 10, let earlier = locations.withLock({ $0[id - 10] }) {
                            #expect((try? journal.withLine(at: earlier) { Array($0) }) == ItemJSON.line(Self.item(id - 10)))
                        }
                    }
                }
            }
            for _ in 0..<4 { await group.next() }
            stop.withLock { $0 = true }
        }
        try journal.flush()
        let contents = try Self.readAll(journal.path)
        #expect(contents.skipped == 0)
        #expect(contents.items.count == 1200)
        #expect(Set(contents.items.map(\.id)).count == 1200)
        for (id, location) in locations.withLock({ $0 }) {
            #expect(try Self.line(journal, location) == ItemJSON.line(Self.item(id)))
        }
    }

    /// A full disk: the flush fails, its lines stay readable (as do lines appended after it),
    /// and once space is freed a flush writes each line exactly once.
    @Test func aFailedFlushKeepsLinesReadableAndIsRetriedWithoutWritingTwice() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("manifest.journal"))
        let first = (0..<3).map { journal.append(Self.item($0)) }
        try journal.flush()
        WriteFaults.arm(directory: dir.path, allowBytes: 0)
        defer { WriteFaults.disarm(directory: dir.path) }
        let failing = (3..<6).map { journal.append(Self.item($0)) }
        #expect(throws: FileSystemError.self) { try journal.flush() }
        let later = (6..<8).map { journal.append(Self.item($0)) }
        #expect(throws: FileSystemError.self) { try journal.flush() }
        #expect(journal.pendingCount == 5)
        for (n, location) in (first + failing + later).enumerated() {
            #expect(try Self.line(journal, location) == ItemJSON.line(Self.item(n)), "line \(n)")
        }
        #expect(try Self.readAll(journal.path).items.count == 3)  // nothing more reached the file
        WriteFaults.disarm(directory: dir.path)
        try journal.flush()
        #expect(journal.pendingCount == 0)
        let contents = try Self.readAll(journal.path)
        #expect(contents.items == (0..<8).map { Self.item($0) })
        #expect(contents.skipped == 0)
        for (n, location) in (first + failing + later).enumerated() {
            #expect(try Self.line(journal, location) == ItemJSON.line(Self.item(n)), "line \(n)")
        }
    }
}
