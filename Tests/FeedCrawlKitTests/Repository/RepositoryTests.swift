import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials
import Testing

@testable import FeedCrawlKit

/// The archive as a repository (`docs/repository.md`), on a memory backend and on a folder:
/// groups journaled and committed, read back as they read now; settled pages; moved items
/// shadowed; an unfinished run's journal adopted; damaged and lost roots recovered; older
/// manifests converted; `--cache-max`; files removed only once no kept root names them.
@Suite struct RepositoryTests {
    static let run1: Int64 = 1_780_000_000_000
    static let run2: Int64 = 1_780_003_600_000

    /// An item of `source` with one image whose file is named after `id` (stored, fetched at `fetched`).
    static func item(_ source: String = "pixabay", _ id: String, page: Int, status: ItemStatus = .downloaded,
                     fetched: Int64 = run1, url: String? = nil) -> ManifestItem {
        let url = url ?? "https://cdn.example/\(source)/\(id).jpg"
        var image = ImageRecord(variant: "preview", url: url, status: status)
        if status.hasImage {
            let key = CacheLayout.key(forURL: url)
            image.file = CacheLayout.relativePath(forKey: key, format: .jpeg)
            image.bytes = 1000
            image.sha256 = String(repeating: "a", count: 64)
            image.fetchedAt = Date(timeIntervalSince1970: Double(fetched / 1000))
        } else {
            image.error = "HTTP 404"
        }
        return ManifestItem(source: source, id: id, page: page, title: "t\(id)", images: [image])
    }

    /// An item of pixabay (`item("pixabay", id, …)`): Swift gives a lone unlabelled argument to
    /// the first parameter, `source`, so `item("2", page: 1)` needs this overload to mean the id.
    static func item(_ id: String, page: Int, status: ItemStatus = .downloaded, fetched: Int64 = run1, url: String? = nil)
        -> ManifestItem
    {
        item("pixabay", id, page: page, status: status, fetched: fetched, url: url)
    }

    /// Journals `pages` (number → items) as one run started at `run` and commits it.
    @discardableResult
    static func crawl(
        _ backend: any Backend, run: Int64, pages: [(Int, [ManifestItem], String)], settle: [(Int, String)] = [],
        ttl: Double = 86_400, cap: Int64? = nil
    ) async throws -> (Repository, Repository.Committed, [GroupEntry?]) {
        let repository = try await Repository.open(backend)
        let settled = settle.map { page, digest in
            repository.settleIfUnchanged(source: "pixabay", page: page, digest: digest, recipe: "r", run: run, ttl: ttl)
        }
        let journal = RunJournal(backend: backend, started: run, firstNumber: repository.root.nextGroup)
        for (page, items, digest) in pages {
            try journal.append(source: "pixabay", page: page, digest: digest, recipe: "r", items: items)
        }
        try await journal.flush()
        let record = RunRecord(startedAt: Date(timeIntervalSince1970: Double(run) / 1000))
        let committed = try await repository.commit(
            journal: journal, run: record, generatedAt: Date(), capBytes: cap, protectedSince: run)
        // The journal's groups are the table's now; the journal lets its copies go.
        #expect(journal.groups.isEmpty)
        return (repository, committed, settled)
    }

    static func items(_ backend: any Backend) async throws -> [ManifestItem] {
        var items: [ManifestItem] = []
        try await Repository.open(backend).forEachItem { items.append($0) }
        return items
    }

    @Test func aCommittedRunReadsBackAsAVersionTwoManifestWould() async throws {
        let backend = Backends.memory()
        let first = [Self.item("2", page: 1), Self.item("10", page: 1), Self.item("3", page: 1, status: .failed)]
        let (_, committed, _) = try await Self.crawl(backend, run: Self.run1, pages: [(1, first, "d1")])
        #expect(committed.root.totals.files == 2)
        #expect(committed.root.totals.bytes == 2000)
        #expect(committed.listed["pixabay"]?.items == ["downloaded": 2, "failed": 1])
        let items = try await Self.items(backend)
        #expect(items.map(\.id) == ["2", "3", "10"], "the manifest's order: numeric ids numerically")
        #expect(items.allSatisfy { $0.page == 1 && $0.lastSeen == Date(timeIntervalSince1970: 1_780_000_000) })
        #expect(items[0].images[0].status == .downloaded)
        // The root is small and names its files; a copy of it is kept.
        let root = try await backend.load(Repository.rootHandle(state: ""), range: nil, maxBytes: 1 << 20)
        #expect(root.count < 4096)
        #expect(try RepositoryRoot.decode(root).isRoot)
        var copies: [String] = []
        try await backend.list(.archive, prefix: "roots/") { copies += $0.map(\.handle.name) }
        #expect(copies.count == 1)
    }

    @Test func anUnchangedPageSettlesAndItsItemsReadFreshAtTheNewRun() async throws {
        let backend = Backends.memory()
        let page = [Self.item("1", page: 1), Self.item("2", page: 1)]
        try await Self.crawl(backend, run: Self.run1, pages: [(1, page, "d1")])
        let (repository, committed, settled) = try await Self.crawl(
            backend, run: Self.run2, pages: [], settle: [(1, "d1"), (2, "dx")])
        #expect(settled[0] != nil, "same digest, same recipe, nothing to retry: settled")
        #expect(settled[1] == nil, "no group for page 2")
        #expect(committed.listed["pixabay"]?.items == ["fresh": 2])
        #expect(repository.table.entries.count == 1)
        let items = try await Self.items(backend)
        #expect(items.allSatisfy { $0.lastSeen == Date(timeIntervalSince1970: 1_780_003_600) && $0.status == .fresh })
        // A changed page, an expired image, a failed image: not settled.
        let later = Self.run2 + 1000
        let again = try await Repository.open(backend)
        #expect(again.settleIfUnchanged(source: "pixabay", page: 1, digest: "d2", recipe: "r", run: later, ttl: 86_400) == nil)
        #expect(again.settleIfUnchanged(source: "pixabay", page: 1, digest: "d1", recipe: "other", run: later, ttl: 86_400) == nil)
        #expect(again.settleIfUnchanged(source: "pixabay", page: 1, digest: "d1", recipe: "r", run: later, ttl: 60) == nil)
        let failing = Backends.memory()
        try await Self.crawl(failing, run: Self.run1, pages: [(1, [Self.item("9", page: 1, status: .failed)], "d1")])
        let retry = try await Repository.open(failing)
        #expect(retry.settleIfUnchanged(source: "pixabay", page: 1, digest: "d1", recipe: "r", run: later, ttl: 86_400) == nil)
    }

    @Test func anItemThatMovedPagesIsCountedOnceAtItsNewestListing() async throws {
        let backend = Backends.memory()
        try await Self.crawl(backend, run: Self.run1, pages: [(1, [Self.item("1", page: 1), Self.item("2", page: 1)], "d1")])
        // The feed shifted: item 2 is on page 2 now, page 1 holds 1 and 3.
        let (repository, committed, _) = try await Self.crawl(backend, run: Self.run2, pages: [
            (1, [Self.item("1", page: 1, status: .fresh), Self.item("3", page: 1)], "d1b"),
            (2, [Self.item("2", page: 2, status: .fresh)], "d2"),
        ])
        #expect(committed.root.totals.sources["pixabay"]?.items.values.reduce(0, +) == 3)
        let items = try await Self.items(backend)
        #expect(items.map(\.id) == ["1", "2", "3"])
        #expect(items.first { $0.id == "2" }?.page == 2)
        // The first run's group is shadowed whole and leaves the table.
        #expect(repository.table.entries.count == 2)
    }

    @Test func aJournalNoRootNamesIsAdoptedByTheNextOpen() async throws {
        let backend = Backends.memory()
        try await Self.crawl(backend, run: Self.run1, pages: [(1, [Self.item("1", page: 1)], "d1")])
        // A run that journaled page 2 and was killed before its commit.
        let killed = RunJournal(backend: backend, started: Self.run2, firstNumber: 50)
        try killed.append(source: "pixabay", page: 2, digest: "d2", recipe: "r", items: [Self.item("2", page: 2)])
        try await killed.flush()
        let reopened = try await Repository.open(backend)
        #expect(reopened.adopted == 1)
        #expect(reopened.adoptedJournalFiles == 1)
        let items = try await Self.items(backend)
        #expect(items.map(\.id) == ["1", "2"], "a reader includes what the unfinished run journaled")
        // The next run's commit names it; the one after adopts nothing.
        let (_, committed, _) = try await Self.crawl(backend, run: Self.run2 + 5000, pages: [])
        #expect(committed.root.segments.contains { $0.name.hasPrefix("journal/") && $0.name.contains("-0.ndjson") })
        #expect(try await Repository.open(backend).adopted == 0)
        #expect(try await Self.items(backend).count == 2)
    }

    @Test func aDamagedOrLostRootFallsBackToItsNewestCopy() async throws {
        let backend = Backends.memory()
        try await Self.crawl(backend, run: Self.run1, pages: [(1, [Self.item("1", page: 1)], "d1")])
        try await Self.crawl(backend, run: Self.run2, pages: [(2, [Self.item("2", page: 2)], "d2")])
        let root = Repository.rootHandle(state: "")
        let whole = try await backend.load(root, range: nil, maxBytes: 1 << 20)
        // Cut short.
        try await backend.save(root, bytes: Array(whole.prefix(whole.count / 2)), options: SaveOptions())
        let damaged = try await Repository.open(backend)
        #expect(damaged.notes.contains { $0.contains("is damaged") })
        #expect(try await Self.items(backend).map(\.id) == ["1", "2"])
        // Gone.
        try await backend.remove(root)
        let lost = try await Repository.open(backend)
        #expect(lost.notes.contains { $0.contains("was missing") })
        #expect(try await Self.items(backend).map(\.id) == ["1", "2"])
        // Gone, and every copy too: rebuilt from the segments.
        var copies: [FileHandle] = []
        try await backend.list(.archive, prefix: "roots/") { copies += $0.map(\.handle) }
        for copy in copies { try await backend.remove(copy) }
        let rebuilt = try await Repository.open(backend)
        #expect(rebuilt.adopted == 2)
        #expect(try await Self.items(backend).map(\.id) == ["1", "2"])
    }

    @Test func cacheMaxEvictsTheLeastRecentlyListedGroupsAndTheirFiles() async throws {
        let backend = Backends.memory()
        for id in ["1", "2", "3"] {
            let handle = try #require(FileHandle.image(file: Self.item(id, page: 1).images[0].file!))
            try await backend.save(handle, bytes: [UInt8](repeating: 1, count: 1000), options: SaveOptions())
        }
        try await Self.crawl(backend, run: Self.run1, pages: [(1, [Self.item("1", page: 1)], "d1")])
        try await Self.crawl(backend, run: Self.run1 + 1000, pages: [(2, [Self.item("2", page: 2)], "d2")])
        let (_, committed, _) = try await Self.crawl(
            backend, run: Self.run2, pages: [(3, [Self.item("3", page: 3)], "d3")], cap: 2000)
        #expect(committed.evictedFiles == 1)
        #expect(committed.evictedBytes == 1000)
        #expect(!committed.overCap)
        #expect(try await Self.items(backend).map(\.id) == ["2", "3"], "page 1, listed longest ago, went")
        let gone = try #require(FileHandle.image(file: Self.item("1", page: 1).images[0].file!))
        #expect(try await backend.stat(gone) == nil)
        // What this run listed alone over the cap: nothing of it goes, and it says so.
        let (_, over, _) = try await Self.crawl(backend, run: Self.run2 + 1000, pages: [
            (4, [Self.item("4", page: 4), Self.item("5", page: 4), Self.item("6", page: 4)], "d4"),
        ], cap: 1000)
        #expect(over.overCap)
    }

    @Test func archiveFilesGoOnlyOnceNoKeptRootNamesThem() async throws {
        let backend = Backends.memory()
        try await Self.crawl(backend, run: Self.run1, pages: [(1, [Self.item("1", page: 1)], "d1")])
        var first: Set<String> = []
        try await backend.list(.archive, prefix: "tables/") { first.formUnion($0.map(\.handle.name)) }
        // Each run rewrites the group table; the first one's stays while a kept root names it.
        for step in 1...Repository.keptRoots {
            try await Self.crawl(backend, run: Self.run2 + Int64(step) * 1000, pages: [], settle: [(1, "d1")])
            var now: Set<String> = []
            try await backend.list(.archive, prefix: "tables/") { now.formUnion($0.map(\.handle.name)) }
            let kept = first.isSubset(of: now)
            #expect(step < Repository.keptRoots ? kept : !kept, "after \(step) more runs")
        }
        var copies: [String] = []
        try await backend.list(.archive, prefix: "roots/") { copies += $0.map(\.handle.name) }
        #expect(copies.count == Repository.keptRoots)
    }

    @Test func smallJournalFilesAreCompactedIntoOneSegment() async throws {
        let backend = Backends.memory()
        let runs = Repository.smallSegmentsAllowed + 4
        for index in 0..<runs {
            try await Self.crawl(backend, run: Self.run1 + Int64(index) * 1000, pages: [
                (index + 1, [Self.item(String(index), page: index + 1)], "d\(index)"),
            ])
        }
        let repository = try await Repository.open(backend)
        #expect(repository.root.segments.count <= Repository.smallSegmentsAllowed + 1)
        #expect(repository.root.segments.contains { $0.name.hasPrefix("segments/") })
        #expect(try await Self.items(backend).count == runs, "every group still read, from where it moved")
        // Compacted groups settle as before: their table entries moved, not their facts.
        #expect(repository.settleIfUnchanged(source: "pixabay", page: 1, digest: "d0", recipe: "r", run: Self.run2, ttl: 86_400) != nil)
    }

    /// Also one larger than any root (a version-2 manifest of 1,000,000 items is 671 MB): here
    /// padded with blanks past `maxRootBytes`.
    @Test(arguments: [0, Int(Repository.maxRootBytes)])
    func aVersionTwoManifestIsConvertedWithEveryFactKept(padding: Int) async throws {
        let backend = Backends.memory()
        var old = Manifest(generatedAt: Date(timeIntervalSince1970: 1_700_000_000))
        old.run = RunRecord(startedAt: Date(timeIntervalSince1970: 1_700_000_000))
        var a = Self.item("1", page: 1)
        a.lastSeen = Date(timeIntervalSince1970: 1_700_000_000)
        var b = Self.item("2", page: 3, status: .failed)
        b.lastSeen = Date(timeIntervalSince1970: 1_690_000_000)
        var c = Self.item("5", "7", page: 1)
        c.lastSeen = Date(timeIntervalSince1970: 1_700_000_000)
        old.items = [a, b, c]
        let bytes = ManifestStore.encode(old)
        let padded = [bytes[0]] + [UInt8](repeating: 0x20, count: padding) + bytes.dropFirst()
        try await backend.save(Repository.rootHandle(state: ""), bytes: padded, options: SaveOptions())
        let said = Locked<[String]>([])
        let repository = try await Repository.openConverting(backend, state: "") { note in said.withLock { $0.append(note) } }
        #expect(said.withLock { $0.count } == 1)
        #expect(repository.table.entries.count == 3, "one group per source, page and listing")
        var items: [ManifestItem] = []
        try await repository.forEachItem { items.append($0) }
        #expect(items == old.sortedItems)
        #expect(try await backend.stat(FileHandle(.state, "manifest.v2.json")!) != nil)
    }

    /// A file where the root should be that is larger than any root and no manifest either is
    /// damaged, not converted into an empty archive.
    @Test func aRootLargerThanAnyAndNoManifestIsDamaged() async throws {
        let backend = Backends.memory()
        let bytes = Array("{".utf8) + [UInt8](repeating: 0x20, count: Int(Repository.maxRootBytes)) + Array("\"a\": 1}".utf8)
        try await backend.save(Repository.rootHandle(state: ""), bytes: bytes, options: SaveOptions())
        await #expect(throws: DamagedRoot.self) {
            _ = try await Repository.openConverting(backend, state: "") { _ in }
        }
        #expect(try await backend.stat(Repository.rootHandle(state: ""))?.size == Int64(bytes.count), "left as it was")
    }
}

extension RepositoryRoot.Decoded {
    var isRoot: Bool {
        if case .root = self { return true }
        return false
    }
}
