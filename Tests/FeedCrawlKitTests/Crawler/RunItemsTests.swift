import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

/// This run's item store: one journal line per finished item, read back in manifest order,
/// each key once.
@Suite("RunItems")
struct RunItemsTests {
    static let started = Date(timeIntervalSince1970: 1_700_000_000)

    static func item(_ id: String, source: String = "pixabay", page: Int = 1, title: String? = nil) -> ManifestItem {
        ManifestItem(source: source, id: id, page: page, title: title ?? "t\(id)", lastSeen: started, images: [
            ImageRecord(variant: "preview", url: "https://cdn.example/\(id).jpg", status: .downloaded,
                        file: "cache/ab/ab" + String(repeating: "0", count: 62) + ".jpg", bytes: 10),
        ])
    }

    /// Every item `stream` yields.
    static func drain(_ stream: RunItemStream) throws -> [ManifestItem] {
        var stream = stream
        var items: [ManifestItem] = []
        while let next = try stream.next() { items.append(next.item) }
        return items
    }

    @Test func itemsComeBackInManifestOrderEachKeyOnceTheLowestPageWinning() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("manifest.journal"))
        let finished = Locked<[ItemStatus]>([])
        let store = RunItems(journal: journal, spill: Spill(directory: dir.path), runStarted: Self.started) { event in
            if case .itemFinished(_, let status) = event { finished.withLock { $0.append(status) } }
        }
        var failed = Self.item("9", page: 1)
        failed.images[0].status = .failed
        let recorded = [
            Self.item("10", page: 2), Self.item("9", page: 3, title: "listed on a later page"), failed, Self.item("b"),
            Self.item("2"), Self.item("1", source: "launches"), Self.item("2", title: "the same page again"),
        ]
        var locations: [ItemLocation] = []
        for item in recorded { locations.append(store.record(item)) }
        #expect(store.count == 7)
        #expect(finished.withLock { $0 } == [.downloaded, .downloaded, .failed, .downloaded, .downloaded, .downloaded, .downloaded])
        // Each line reads back where `record` said it is, before and after the flush.
        #expect(store.item(startingAt: locations[2].offset) == failed)
        store.flush(force: true)
        #expect(store.item(startingAt: locations[1].offset)?.title == "listed on a later page")

        let items = try Self.drain(RunItemStream(entries: store.sorted(), journal: journal, verbatim: true))
        #expect(items.map { "\($0.source)/\($0.id)" } == ["launches/1", "pixabay/2", "pixabay/9", "pixabay/10", "pixabay/b"])
        // A key recorded twice: the listing on the lowest page wins, whatever the order recorded;
        // on the same page, the last recorded.
        #expect(items.first { $0.id == "9" } == failed)
        #expect(items.first { $0.id == "2" }?.title == "the same page again")
        var lines = 0
        try Journal.read(path: journal.path) { _, _ in lines += 1 }
        #expect(lines == 7, "one line per record; the merge picks")
        #expect(store.journalProblem == nil)
    }

    @Test func manyItemsSortThroughTheSpillInOrder() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("manifest.journal"))
        let store = RunItems(journal: journal, spill: Spill(directory: dir.path), runStarted: Self.started) { _ in }
        // Three sort runs and a bit, recorded in a scattered order.
        let count = 3 * ItemSorter.defaultChunkSize + 100
        for step in 0..<count { store.record(Self.item(String((step * 7919) % count))) }
        store.flush(force: true)
        let items = try Self.drain(RunItemStream(entries: store.sorted(), journal: journal, verbatim: true))
        #expect(items.count == count)
        #expect(items.map(\.id) == (0..<count).map(String.init))
        #expect(TestDirectory.list(dir.path) == ["manifest.journal"], "the spill is an anonymous file")
    }

    @Test func aJournalThatCannotBeWrittenIsReportedOnceAndItsItemsStayReadable() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("manifest.journal"))
        let warnings = Locked(0)
        let store = RunItems(journal: journal, spill: nil, runStarted: Self.started) { event in
            if case .warning = event { warnings.withLock { $0 += 1 } }
        }
        WriteFaults.arm(directory: dir.path, allowBytes: 0)
        defer { WriteFaults.disarm(directory: dir.path) }
        for id in 0..<40 { store.record(Self.item(String(id))) }
        store.flush(force: true)
        store.flush(force: true)
        #expect(store.journalProblem?.contains("no space left on device") == true, "\(store.journalProblem ?? "")")
        #expect(warnings.withLock { $0 } == 1)
        let items = try Self.drain(RunItemStream(entries: store.sorted(), journal: journal, verbatim: true))
        #expect(items.count == 40)
    }
}

extension CrawlerTests {
    @Suite("Items listed twice")
    struct DuplicateListingTests {
        @Test func anItemListedOnTwoPagesIsInTheManifestOnce() async throws {
            // Page 2 repeats hit 5 of page 1 (a newest-first feed that shifted while paging).
            let log = RequestLog()
            let feed = try DemoFeedServer(options: .observing(log) { request in
                guard request.path == "/api/" else { return nil }
                let base = "http://" + (request.header("host") ?? "")
                let page = Int(request.query["page"] ?? "1") ?? 1
                let ids = page == 1 ? Array(1...5) : Array(5...9)
                let hits = ids.map { FeedBodies.hit(id: String($0), preview: base + demoImagePaths[$0]) }
                return FeedBodies.pixabayPage(total: 10, totalHits: 10, hits: hits)
            })
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed, pages: 2, perPage: 5)], out: out.path)
            #expect(run.items("pixabay").map(\.id) == (1...9).map(String.init))
            #expect(run.report.itemCount == 9)
            #expect(run.manifest.run?.counts == ["downloaded": 9])
            #expect(run.items("pixabay").allSatisfy { $0.status == .downloaded })
            #expect(log.count(path: demoImagePaths[5]) == 1, "the repeated item's image is fetched once")
            #expect(try verifyCache(out.path).isClean)
        }
    }
}
