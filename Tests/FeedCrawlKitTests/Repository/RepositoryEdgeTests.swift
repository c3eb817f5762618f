import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials
import Testing

@testable import FeedCrawlKit

/// What the crawler suites found wrong in the repository, checked where it is decided: an item
/// one run lists twice, placeholders a page's new listing supersedes, a repaired file's page,
/// an image URL a later run stored anew, a merge of a shard that numbered its groups like OUT's,
/// a damaged root with nothing to fall back on.
@Suite struct RepositoryEdgeTests {
    /// The items and runs of `RepositoryTests`.
    typealias Fixture = RepositoryTests

    /// Every item of the archive at `state` (default OUT's), as `forEachItem` reads them.
    static func items(_ backend: any Backend, state: String = "") async throws -> [ManifestItem] {
        var items: [ManifestItem] = []
        try await Repository.open(backend, state: state).forEachItem { items.append($0) }
        return items
    }

    @Test func anItemOneRunListsOnTwoPagesIsCountedOnce() async throws {
        let backend = Backends.memory()
        let (repository, committed, _) = try await Fixture.crawl(backend, run: Fixture.run1, pages: [
            (1, [Fixture.item("1", page: 1), Fixture.item("2", page: 1)], "d1"),
            (2, [Fixture.item("2", page: 2), Fixture.item("3", page: 2)], "d2"),
        ])
        #expect(committed.listed["pixabay"]?.items == ["downloaded": 3])
        #expect(committed.root.totals.sources["pixabay"]?.items == ["downloaded": 3])
        #expect(repository.table.entries.map(\.liveItems).reduce(0, +) == 3)
        let items = try await Self.items(backend)
        #expect(items.map(\.id) == ["1", "2", "3"])
        #expect(items.first { $0.id == "2" }?.page == 2, "the later listing wins")
    }

    @Test func aPageListedAgainSupersedesThePlaceholdersItsEarlierListingRecorded() async throws {
        let backend = Backends.memory()
        let placeholder = ManifestItem(source: "pixabay", id: "page1-index1", page: 1, title: "", error: "hit is null", images: [])
        try await Fixture.crawl(backend, run: Fixture.run1, pages: [(1, [Fixture.item("86", page: 1), placeholder], "d1")])
        #expect(try await Self.items(backend).map(\.id) == ["86", "page1-index1"])
        let (_, committed, _) = try await Fixture.crawl(backend, run: Fixture.run2, pages: [
            (1, [Fixture.item("86", page: 1), Fixture.item("85", page: 1)], "d1b"),
        ])
        #expect(try await Self.items(backend).map(\.id) == ["85", "86"])
        #expect(committed.root.totals.sources["pixabay"]?.items == ["downloaded": 2])
    }

    @Test func aPageWhoseFileARepairRemovedIsNotSettledAgain() async throws {
        let backend = Backends.memory()
        let item = Fixture.item("1", page: 1)
        try await Fixture.crawl(backend, run: Fixture.run1, pages: [(1, [item], "d1")])
        let repository = try await Repository.open(backend)
        let file = try #require(item.images[0].file.flatMap(FileHandle.image(file:)))
        #expect(try await repository.markForRetry([file]) == 1)
        let before = repository.root.run
        _ = try await repository.commit(journal: nil, run: nil, generatedAt: Date())
        #expect(repository.root.run == before, "a repair keeps the last run's record")
        let again = try await Repository.open(backend)
        #expect(again.settleIfUnchanged(source: "pixabay", page: 1, digest: "d1", recipe: "r", run: Fixture.run2, ttl: 86_400) == nil)
    }

    @Test func anItemNotListedReadsTheNewestRecordOfAnImageURLALaterRunStoredAnew() async throws {
        let backend = Backends.memory()
        let url = "https://cdn.example/shared.jpg"
        let first = Fixture.item("1", page: 1, url: url)
        let second = Fixture.item("2", page: 2, url: url)
        try await Fixture.crawl(backend, run: Fixture.run1, pages: [(1, [first], "d1"), (2, [second], "d2")])
        // The next run lists page 1 only: the URL came back as a PNG, fetched at its start.
        var changed = Fixture.item("1", page: 1, fetched: Fixture.run2, url: url)
        changed.images[0].file = CacheLayout.relativePath(forURL: url, format: .png)
        changed.images[0].sha256 = String(repeating: "b", count: 64)
        changed.images[0].bytes = 2000
        changed.images[0].etag = "\"new\""
        try await Fixture.crawl(backend, run: Fixture.run2, pages: [(1, [changed], "d1b")])
        let carried = try #require(try await Self.items(backend).first { $0.id == "2" })
        #expect(carried.images[0].file == changed.images[0].file)
        #expect(carried.images[0].sha256 == changed.images[0].sha256 && carried.images[0].bytes == 2000)
        #expect(carried.images[0].etag == "\"new\"")
        #expect(carried.images[0].status == .downloaded, "its own status")
        #expect(carried.lastSeen == Date(timeIntervalSince1970: Double(Fixture.run1 / 1000)), "its own listing")
    }

    @Test func aShardsGroupsNumberedLikeGroupsOUTHasJoinTheMerge() async throws {
        let backend = Backends.memory()
        try await Fixture.crawl(backend, run: Fixture.run1, pages: [(1, [Fixture.item("1", page: 1)], "d1")])
        // A shard that numbered its groups from 1, as OUT's.
        let shard = try await Repository.open(backend, state: "shards/2/0/")
        let journal = RunJournal(backend: backend, state: "shards/2/0/", started: Fixture.run2, firstNumber: 1, step: 2)
        try journal.append(source: "pixabay", page: 2, digest: "d2", recipe: "r", items: [Fixture.item("2", page: 2)])
        try await journal.flush()
        _ = try await shard.commit(journal: journal, run: RunRecord(startedAt: Date()), generatedAt: Date())
        let main = try await Repository.open(backend)
        let part = try await Repository.open(backend, state: "shards/2/0/")
        #expect(try await main.absorb(part) == 1)
        _ = try await main.commit(journal: nil, run: RunRecord(startedAt: Date()), generatedAt: Date())
        #expect(try await Self.items(backend).map(\.id) == ["1", "2"])
        // Merging again joins nothing new: the group is known by where its lines are.
        let again = try await Repository.open(backend)
        #expect(try await again.absorb(try await Repository.open(backend, state: "shards/2/0/")) == 0)
    }

    @Test func aDamagedRootWithNothingToFallBackOnIsAnError() async throws {
        let backend = Backends.memory()
        try await backend.save(Repository.rootHandle(state: ""), bytes: Array(#"{"version":9}"#.utf8), options: SaveOptions())
        await #expect(throws: DamagedRoot.self) { _ = try await Repository.open(backend) }
    }
}
