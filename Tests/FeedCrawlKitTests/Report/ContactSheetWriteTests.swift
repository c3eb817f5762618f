import FeedCrawlStorage
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

/// The sheet written from an archive through its backend (`ContactSheet.write`): its pages are
/// the ones `ContactSheet.pages` makes from the whole manifest in memory, and a run rewrites only
/// the pages whose content changed (their fingerprints kept in `OUT/.sheet.json`).
@Suite("Contact sheet written from the archive")
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

    @Test(arguments: [(0, UInt64(1)), (1, 2), (300, 3), (2000, 4)])
    func theWrittenPagesEqualTheInMemoryPages(count: Int, seed: UInt64) async throws {
        let manifest = Self.randomManifest(count, seed: seed)
        let backend = Backends.memory()
        let repository = try await SheetFixture.archive(manifest, in: backend)
        let written = try await SheetFixture.write(repository, run: manifest.run, backend: backend)
        let expected = SheetFixture.expected(manifest)
        #expect(try await SheetFixture.pages(backend) == expected)
        #expect(written.saved == expected.count)
        #expect(written.rendered == expected.count - 1 || count == 0)
        for html in expected.values { #expect(html.utf8.count < 2 << 20) }
    }

    @Test func aVersion1ManifestIsRenderedAsItsConversion() async throws {
        let converted = try ManifestStore.decode(Array(V1Fixtures.manifest.utf8))
        let backend = Backends.memory()
        let repository = try await SheetFixture.archive(converted, in: backend)
        try await SheetFixture.write(repository, run: converted.run, backend: backend)
        let pages = try await SheetFixture.pages(backend)
        #expect(pages == SheetFixture.expected(converted))
        #expect(pages.values.joined().contains("<a href=\"\(V1Fixtures.largeFile)\">large</a>"))  // details.largePatchFile, linked
    }

    /// An empty archive: `index.html` alone, saying so; an earlier one is replaced.
    @Test func anEmptyArchiveWritesTheIndexAlone() async throws {
        let dir = TestDirectory()
        try AtomicFile.write(Array("old".utf8), to: dir.file(ContactSheet.fileName))
        let backend = try Backends.folder(dir.path)
        let repository = try await Repository.open(backend)
        let written = try await SheetFixture.write(repository, run: nil, backend: backend)
        #expect(written == ContactSheet.Written(pages: 0, rendered: 0, saved: 1, removed: []))
        let html = String(decoding: try FileIO.read(dir.file(ContactSheet.fileName)), as: UTF8.self)
        #expect(html.contains("lists no items yet") && html.contains("No run recorded."))
        #expect(TestDirectory.list(dir.path).filter { !$0.hasPrefix(".") } == ["index.html"])
    }
}

/// A run rewrites only what changed.
extension ContactSheetWriteTests {
    /// Items on pixabay pages 1 to `pages` (3 items each), listed at `seen`.
    static func listing(pages: ClosedRange<Int>, seen: Date, tag: String = "") -> [ManifestItem] {
        pages.flatMap { page in
            (0..<3).map { n in
                ContactSheetTests.item("pixabay", "\(page)-\(n)", page: page, title: "item \(page)-\(n)\(tag)", author: "u",
                                       seen: seen, [ContactSheetTests.stored("preview", page * 10 + n)])
            }
        }
    }

    /// Journals `items` as one run started at `seen` (one group per feed page) and commits it;
    /// each page listed again without work when `relist` names it (its group's `lastListed`
    /// moves, as a settled page's does).
    static func run(
        _ repository: Repository, _ items: [ManifestItem], at seen: Date, relist: [Int] = []
    ) async throws -> RunRecord {
        let start = Int64((seen.timeIntervalSince1970 * 1000).rounded())
        for page in relist {
            let entry = try #require(repository.table.newest(source: "pixabay", page: page))
            _ = repository.settleIfUnchanged(
                source: "pixabay", page: page, digest: entry.digest ?? "", recipe: entry.recipe ?? "", run: start, ttl: 1e9)
        }
        let journal = RunJournal(backend: repository.backend, started: start, firstNumber: repository.root.nextGroup)
        for page in Set(items.map(\.page)).sorted() {
            try journal.append(source: "pixabay", page: page, digest: "d\(page)-\(start)", recipe: "r", items: items.filter { $0.page == page })
        }
        try await journal.flush()
        let record = RunRecord(startedAt: seen)
        _ = try await repository.commit(journal: journal, run: record, generatedAt: seen.addingTimeInterval(1))
        return record
    }

    /// A second, unchanged run (every page settled: its groups listed again) saves `index.html`
    /// and nothing else: no page, not even the state; a third the same.
    @Test func anUnchangedRunRewritesOnlyTheIndex() async throws {
        let memory = Backends.memory()
        let backend = SheetTestBackend(memory)
        let repository = try await Repository.open(memory)
        let t0 = ContactSheetTests.runStart
        var record = try await Self.run(repository, Self.listing(pages: 1...5, seen: t0), at: t0)
        var written = try await SheetFixture.write(repository, run: record, backend: backend, pageItems: 2)
        #expect(written.rendered == 5)
        #expect(written.saved == 5 * 2 + 1)  // 3 items a page at 2 a part
        #expect(backend.saved.filter { $0 == ".sheet.json" }.count == 1)
        // A tile shows the outcome the run that recorded it gave (`downloaded`), not the `fresh`
        // a relisting reads: no relisting rewrites a page, not even the first.
        for round in 1...3 {
            backend.reset()
            record = try await Self.run(repository, [], at: t0.addingTimeInterval(60 * Double(round)), relist: Array(1...5))
            written = try await SheetFixture.write(repository, run: record, backend: backend, pageItems: 2)
            #expect(written.rendered == 0)
            #expect(backend.saved == ["index.html"], "round \(round)")
            #expect(backend.removed.isEmpty)
            #expect(try await SheetFixture.pages(memory)["index.html"]?.contains("Last run \(ContactSheet.time(record.startedAt))") == true)
        }
    }

    /// A feed page that changed rewrites its own page alone; a new feed page rewrites itself and
    /// its neighbour, whose links change; pages the last run did not list are rewritten once,
    /// faded, and not again while nothing changes.
    @Test func aChangedFeedPageRewritesOnlyItsPageAndItsNeighbours() async throws {
        let memory = Backends.memory()
        let backend = SheetTestBackend(memory)
        let repository = try await Repository.open(memory)
        let t0 = ContactSheetTests.runStart
        var record = try await Self.run(repository, Self.listing(pages: 1...5, seen: t0), at: t0)
        try await SheetFixture.write(repository, run: record, backend: backend)
        record = try await Self.run(repository, [], at: t0.addingTimeInterval(60), relist: Array(1...5))
        try await SheetFixture.write(repository, run: record, backend: backend)

        // Page 3 listed anew (its items changed); the others settled.
        backend.reset()
        var t = t0.addingTimeInterval(120)
        record = try await Self.run(repository, Self.listing(pages: 3...3, seen: t, tag: " new"), at: t, relist: [1, 2, 4, 5])
        var written = try await SheetFixture.write(repository, run: record, backend: backend)
        #expect(written.rendered == 1)
        // The state without page 3 first (a killed run must not leave it vouching for page 3), then
        // the page, the new state, the index.
        #expect(backend.saved == [".sheet.json", "index-pixabay-p3.html", ".sheet.json", "index.html"])
        #expect(try await SheetFixture.pages(memory)["index-pixabay-p3.html"]?.contains("item 3-0 new") == true)

        // Page 6 is new: it and page 5 (whose "next" now links it) are rendered; page 3, whose
        // new listing is listed again for the first time, is not (its tiles show what was recorded).
        backend.reset()
        t = t.addingTimeInterval(60)
        record = try await Self.run(repository, Self.listing(pages: 6...6, seen: t), at: t, relist: Array(1...5))
        written = try await SheetFixture.write(repository, run: record, backend: backend)
        #expect(written.saved == 3)
        #expect(Set(backend.saved).subtracting([".sheet.json"]) == ["index-pixabay-p5.html", "index-pixabay-p6.html", "index.html"])
        #expect(backend.saved.last == "index.html")
        #expect(try await SheetFixture.pages(memory)["index-pixabay-p5.html"]?.contains("<a class=\"na\" href=\"index-pixabay-p6.html\" rel=\"next\">") == true)

        // A run that lists pages 1 and 2 only: 3 to 6 are faded (rewritten), then left alone.
        for round in 0..<2 {
            backend.reset()
            t = t.addingTimeInterval(60)
            record = try await Self.run(repository, [], at: t, relist: [1, 2])
            written = try await SheetFixture.write(repository, run: record, backend: backend)
            let pages = try await SheetFixture.pages(memory)
            #expect(pages["index-pixabay-p4.html"]?.contains(" old\"") == true)
            #expect(pages["index-pixabay-p1.html"]?.contains(" old\"") == false)
            #expect(pages["index.html"]?.contains("(12 not listed by the last run, shown faded)") == true)
            if round == 0 {
                #expect(written.saved == 5)
                #expect(Set(backend.saved).subtracting([".sheet.json"]) == ["index-pixabay-p3.html", "index-pixabay-p4.html", "index-pixabay-p5.html",
                                               "index-pixabay-p6.html", "index.html"])
            } else {
                #expect(backend.saved == ["index.html"])
            }
        }
        // A page whose file is gone is written again though its fingerprint is unchanged.
        try await memory.remove(try #require(FileHandle(.sheet, "index-pixabay-p2.html")))
        backend.reset()
        written = try await SheetFixture.write(repository, run: record, backend: backend)
        #expect(backend.saved == [".sheet.json", "index-pixabay-p2.html", ".sheet.json", "index.html"])
    }

    /// 1,000 feed pages (a 1,000,000-item archive has about 5,000: at that size the warm write
    /// took 0.17 s in a debug build): once their pages read `fresh`, a warm run's sheet loads the
    /// state and the first feed page's group (for index.html) and nothing else, and saves
    /// index.html alone.
    @Test func aWarmRunOverAThousandFeedPagesReadsTheStateAndOneGroup() async throws {
        let memory = Backends.memory()
        let counted = SheetTestBackend(memory)
        let repository = try await Repository.open(counted)
        let t0 = ContactSheetTests.runStart
        var record = try await Self.run(repository, Self.listing(pages: 1...1000, seen: t0), at: t0)
        var written = try await SheetFixture.write(repository, run: record, backend: counted)
        #expect(written.pages == 1000 && written.rendered == 1000)
        for round in 1...2 {
            record = try await Self.run(repository, [], at: t0.addingTimeInterval(60 * Double(round)), relist: Array(1...1000))
            counted.reset()
            let clock = ContinuousClock.now
            written = try await SheetFixture.write(repository, run: record, backend: counted)
            let took = ContinuousClock.now - clock
            if round == 2 {
                #expect(written.rendered == 0)
                #expect(counted.saved == ["index.html"])
                let groups = counted.loaded.filter { $0.hasPrefix("archive/") }
                #expect(counted.loaded.filter { !$0.hasPrefix("archive/") } == [".sheet.json"])
                #expect(groups.count <= 1, "\(groups)")  // the first page's group (unless still cached)
                #expect(took < .seconds(30), "\(took)")
            }
        }
        let state = try await memory.load(ContactSheet.stateHandle, range: nil, maxBytes: 1 << 30)
        #expect(state.count < 1000 * 130, "\(state.count) bytes of state")
    }

    /// Items that moved to another page are shown where their newest listing is: the page they
    /// left is rewritten without them (its earlier listing shows what did not move).
    @Test func anItemThatMovedLeavesItsOldPage() async throws {
        let memory = Backends.memory()
        let backend = SheetTestBackend(memory)
        let repository = try await Repository.open(memory)
        let t0 = ContactSheetTests.runStart
        var record = try await Self.run(repository, Self.listing(pages: 1...2, seen: t0), at: t0)
        try await SheetFixture.write(repository, run: record, backend: backend)
        // Page 2 now lists 1-0 (moved from page 1) and its own 2-0 only.
        backend.reset()
        let t1 = t0.addingTimeInterval(60)
        var moved = Self.listing(pages: 1...2, seen: t1).filter { ["1-0", "2-0"].contains($0.id) }
        moved[0].page = 2
        record = try await Self.run(repository, moved, at: t1, relist: [1])
        try await SheetFixture.write(repository, run: record, backend: backend)
        #expect(Set(backend.saved) == ["index-pixabay-p1.html", "index-pixabay-p2.html", ".sheet.json", "index.html"])
        let pages = try await SheetFixture.pages(memory)
        #expect(SheetFixture.ids(pages["index-pixabay-p1.html"] ?? "") == ["1-1", "1-2"])
        let two = pages["index-pixabay-p2.html"] ?? ""
        #expect(SheetFixture.ids(two) == ["1-0", "2-0", "2-1", "2-2"])
        #expect(two.contains("earlier listing"))
    }

    /// Source names the configuration would refuse can still come from a hand-edited manifest:
    /// canonically equivalent names (`é` and `e` + combining accent) are different sources, with
    /// pages of their own.
    @Test func sourceNamesAreComparedByTheirBytes() async throws {
        let items = ["é", "e\u{301}", "f", "Z", "é"].enumerated().map { n, source in
            ContactSheetTests.item(source, String(n), page: n % 2 + 1, [ContactSheetTests.stored("preview", n)])
        }
        let manifest = ContactSheetTests.manifest(items)
        let backend = Backends.memory()
        let repository = try await SheetFixture.archive(manifest, in: backend)
        try await SheetFixture.write(repository, run: manifest.run, backend: backend)
        let pages = try await SheetFixture.pages(backend)
        #expect(pages == SheetFixture.expected(manifest))
        #expect(pages.count == 1 + 4)  // é page 1 (items 0 and 4), e + ◌́ page 2, f page 1, Z page 2
    }
}
