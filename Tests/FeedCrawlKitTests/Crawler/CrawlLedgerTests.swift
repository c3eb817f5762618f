import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("CrawlLedger")
struct CrawlLedgerTests {
    static let started = Date(timeIntervalSince1970: 1_700_000_000)

    func feedItem(_ id: String, page: Int = 1, url: String? = nil, source: String = "pixabay") -> FeedItem {
        FeedItem(source: source, id: id, page: page, title: "t\(id)", imageURL: url ?? "https://cdn.example/\(id).jpg")
    }

    func downloaded(_ bytes: Int64) -> ImageOutcome {
        var outcome = ImageOutcome(status: .downloaded)
        outcome.file = "cache/ab/x.jpg"
        outcome.bytes = bytes
        outcome.sha256 = String(repeating: "d", count: 64)
        outcome.fetchedAt = Self.started
        return outcome
    }

    @Test func itemsKeepTheirFirstOutcomeAndAreCounted() throws {
        let ledger = CrawlLedger(journal: nil, runStarted: Self.started, events: { _ in })
        let a = try #require(ledger.register(feedItem("1")))
        let b = try #require(ledger.register(feedItem("2")))
        let c = try #require(ledger.register(feedItem("3")))
        ledger.resolve([a, b], with: downloaded(100))
        ledger.resolve([a], with: ImageOutcome(status: .failed, error: "late"))
        let contents = ledger.finishContents()
        let items = Array(contents.items)
        #expect(items.map(\.id) == ["1", "2", "3"])
        #expect(items[0].status == .downloaded && items[0].bytes == 100 && items[0].lastSeen == Self.started)
        #expect(items[2].status == .cancelled && items[2].error == "no outcome before the run ended")
        #expect(contents.counts == [.downloaded: 2, .cancelled: 1])
        #expect(contents.downloadedBytes == 100)  // two items, one shared download
        #expect(c == 2)
    }

    @Test func claimFindsTheFirstTokenOfAURL() throws {
        let ledger = CrawlLedger(journal: nil, runStarted: Self.started, events: { _ in })
        let first = try #require(ledger.register(feedItem("1", url: "https://cdn.example/same.jpg")))
        let second = try #require(ledger.register(feedItem("2", url: "https://cdn.example/same.jpg")))
        let other = try #require(ledger.register(feedItem("3")))
        #expect(ledger.claim(url: "https://cdn.example/same.jpg", token: first) == nil)
        #expect(ledger.claim(url: "https://cdn.example/3.jpg", token: other) == nil)
        #expect(ledger.claim(url: "https://cdn.example/same.jpg", token: second) == first)
        #expect(ledger.outcome(of: first) == nil)
        ledger.resolve([first], with: downloaded(7))
        #expect(ledger.outcome(of: first) == downloaded(7))
    }

    @Test func mergedItemsAreSortedAndTheRunWinsOverThePreviousManifest() {
        let ledger = CrawlLedger(journal: nil, runStarted: Self.started, events: { _ in })
        for (id, page) in [("10", 2), ("9", 2), ("b", 1), ("2", 1)] {
            ledger.register(feedItem(id, page: page)).map { ledger.resolve([$0], with: downloaded(1)) }
        }
        ledger.register(feedItem("1", source: "launches")).map { ledger.resolve([$0], with: ImageOutcome(status: .noImage)) }
        #expect(ledger.register(feedItem("9", page: 3)) == nil)  // repeated id: first wins
        let previous = [
            ManifestItem(source: "pixabay", id: "9", page: 1, title: "old", imageURL: nil, status: .failed),
            ManifestItem(source: "pixabay", id: "5", page: 1, title: "old", imageURL: nil, status: .fresh),
        ]
        let merged = Array(ledger.finishContents().sortedItems(mergedWith: previous))
        #expect(merged.map { "\($0.source)/\($0.page)/\($0.id)" } == [
            "launches/1/1", "pixabay/1/2", "pixabay/1/5", "pixabay/1/b", "pixabay/2/9", "pixabay/2/10",
        ])
        #expect(merged.first { $0.id == "9" }?.status == .downloaded)
        #expect(merged.first { $0.id == "5" }?.title == "old")
    }

    @Test func resolutionsAreJournaled() throws {
        let dir = TestDirectory()
        let journal = try Journal(path: dir.file("j"))
        let ledger = CrawlLedger(journal: journal, runStarted: Self.started, events: { _ in })
        let token = try #require(ledger.register(feedItem("1")))
        ledger.resolve([token], with: downloaded(3))
        ledger.flush()
        let lines = try Journal.load(path: dir.file("j"))
        #expect(lines.map(\.id) == ["1"])
        #expect(lines.first?.bytes == 3)
    }

    /// Details and the large patch may arrive before or after the item's own outcome; either
    /// way the resolved record carries them, and a patch URL listed again reuses its outcome.
    @Test func detailsAndLargePatchesReachResolvedRecords() throws {
        let ledger = CrawlLedger(journal: nil, runStarted: Self.started, events: { _ in })
        let early = try #require(ledger.register(feedItem("1", source: "launches")))
        let late = try #require(ledger.register(feedItem("2", source: "launches")))
        ledger.setDetails(LaunchDetails(rocketName: "Falcon 9", largePatchURL: "https://cdn.example/p.png"), token: early)
        ledger.resolve([early + CrawlLedger.patchTokenBase], with: downloaded(50))
        ledger.resolve([early, late], with: downloaded(5))
        ledger.setDetails(LaunchDetails(site: "KSC", largePatchURL: "https://cdn.example/q.png"), token: late)
        #expect(ledger.claim(url: "https://cdn.example/q.png", token: late + CrawlLedger.patchTokenBase) == nil)
        ledger.resolve([late + CrawlLedger.patchTokenBase], with: ImageOutcome(status: .failed, error: "HTTP 404"))
        #expect(ledger.claim(url: "https://cdn.example/p.png", token: early + CrawlLedger.patchTokenBase) == nil)
        #expect(ledger.claim(url: "https://cdn.example/p.png", token: 99 + CrawlLedger.patchTokenBase)
            == early + CrawlLedger.patchTokenBase)
        #expect(ledger.outcome(of: early + CrawlLedger.patchTokenBase)?.bytes == 50)
        let items = ledger.finish()
        #expect(items[0].details?.rocketName == "Falcon 9" && items[0].details?.largePatchBytes == 50)
        #expect(items[0].details?.largePatchStatus == .downloaded && items[0].bytes == 5)
        #expect(items[1].details?.site == "KSC" && items[1].details?.largePatchStatus == .failed)
        #expect(items[1].details?.largePatchError == "HTTP 404" && items[1].status == .downloaded)
    }
}
