import FeedCrawlSupport
import FoundationEssentials
import Testing

@testable import FeedCrawlKit
@testable import FeedCrawlStorage

/// The run's journal and its recorder (what JournalTests and RunItemsTests checked of the
/// journal before the repository): a flush is due by size or time, a flush that fails keeps its
/// groups readable and is saved once when tried again, and the recorder says so once.
@Suite struct RunJournalTests {
    /// An item of pixabay on `page`.
    static func item(_ id: String, page: Int = 1) -> ManifestItem { RepositoryTests.item("pixabay", id, page: page) }

    @Test func aFlushIsDueWhenEnoughWaitsOrItWaitedLongEnough() async throws {
        let journal = RunJournal(backend: Backends.memory(), started: RepositoryTests.run1, firstNumber: 1)
        #expect(!journal.flushIsDue, "nothing waits")
        journal.interval = .seconds(3600)
        journal.maxBuffered = 1 << 20
        try journal.append(source: "pixabay", page: 1, digest: nil, recipe: nil, items: [Self.item("1")])
        #expect(!journal.flushIsDue)
        journal.maxBuffered = 64
        #expect(journal.flushIsDue, "more than maxBuffered waits")
        journal.maxBuffered = 1 << 20
        journal.interval = .zero
        #expect(journal.flushIsDue, "it waited the interval")
        try await journal.flush()
        #expect(!journal.flushIsDue)
        #expect(journal.groups.count == 1 && journal.segments.count == 1)
    }

    @Test func aFailedFlushKeepsItsGroupsReadableAndSavesThemOnceWhenTriedAgain() async throws {
        let memory = MemoryBackend()
        let journal = RunJournal(backend: memory, started: RepositoryTests.run1, firstNumber: 1)
        let first = try journal.append(source: "pixabay", page: 1, digest: nil, recipe: nil, items: [Self.item("1")])
        memory.failNext("save", kind: .full)
        await #expect(throws: BackendError.self) { try await journal.flush() }
        #expect(journal.problem?.kind == .full)
        #expect(journal.groups.isEmpty, "nothing saved")
        #expect(try await journal.item(group: first.number, position: 0)?.id == "1", "still readable, from memory")
        // Appended meanwhile: the file that failed is saved as it was, then the new one; each
        // group once, in order.
        let second = try journal.append(source: "pixabay", page: 2, digest: nil, recipe: nil, items: [Self.item("2", page: 2)])
        try await journal.flush()
        #expect(journal.groups.map(\.number) == [first.number, second.number])
        #expect(journal.segments.count == 2)
        var numbers: [UInt32] = []
        for segment in journal.segments {
            let handle = try #require(FileHandle(.archive, segment.name))
            let bytes = try await memory.load(handle, range: nil, maxBytes: 1 << 20)
            numbers += GroupCodec.scan(bytes).map(\.header.number)
        }
        #expect(numbers == [first.number, second.number])
        var files: [FileHandle] = []
        try await memory.list(.archive, prefix: "journal/") { files += $0.map(\.handle) }
        #expect(files.count == 2)
        #expect(try await journal.item(group: second.number, position: 0)?.id == "2", "read back from the file")
    }

    @Test func aJournalThatCannotBeSavedIsReportedOnceAndItsItemsStayReadable() async throws {
        let memory = MemoryBackend()
        let journal = RunJournal(backend: memory, started: RepositoryTests.run1, firstNumber: 1)
        let warnings = Locked(0)
        let recorder = PageRecorder(journal: journal, runStarted: Date()) { event in
            if case .warning = event { warnings.withLock { $0 += 1 } }
        }
        for page in 1...3 {
            let token = recorder.open(PageListing(source: "pixabay", page: page), items: 1)
            recorder.record(Self.item(String(page), page: page), page: token)
            recorder.close(token)
            memory.failNext("save", kind: .full)
            await recorder.flush(force: true)
        }
        #expect(warnings.withLock { $0 } == 1)
        #expect(recorder.journalProblem?.hasPrefix("journal: cannot save") == true, "\(recorder.journalProblem ?? "")")
        #expect(recorder.count == 3)
        let place = FinishedURLs.Place.recorded(page: 0, item: 0, image: 0)
        #expect(await recorder.recordedImage(place)?.url == Self.item("1").images[0].url)
        // Once the store takes it, every page is saved.
        await recorder.flush(force: true)
        #expect(journal.groups.count == 3)
    }
}

/// A group read in pieces (as `Repository.rawItems` reads a large one, a mebibyte at a time)
/// decodes as the whole: any split, lines cut anywhere; a piece missing is an error.
@Suite struct GroupDecoderTests {
    @Test func aGroupSplitAnywhereDecodesAsTheWhole() throws {
        let items = (1...7).map { RunJournalTests.item("id\($0)", page: 3) }
        let header = GroupHeader(number: 5, source: "pixabay", page: 3, digest: nil, recipe: nil, listed: 1000, items: items.count)
        let bytes = try GroupCodec.encode(header, items: items).bytes
        let whole = try GroupCodec.decode(bytes)
        #expect(whole.items.map(\.id) == items.map(\.id))
        for size in [1, 2, 7, 64, 333, bytes.count] {
            var decoder = GroupCodec.Decoder()
            var offset = 0
            while offset < bytes.count {
                let next = min(bytes.count, offset + size)
                try decoder.add(bytes[offset..<next])
                offset = next
            }
            let pieces = try decoder.finish()
            #expect(pieces.header == whole.header, "pieces of \(size)")
            #expect(pieces.items == whole.items, "pieces of \(size)")
        }
        var short = GroupCodec.Decoder()
        try short.add(bytes[0..<(bytes.count - 40)])
        #expect(throws: GroupCodec.Damaged.self) { try short.finish() }
    }
}
