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

    @Test func itemsKeepTheirFirstOutcomeAndAreCounted() {
        let ledger = CrawlLedger(journal: nil, runStarted: Self.started, events: { _ in })
        let a = ledger.register(feedItem("1"))
        let b = ledger.register(feedItem("2"))
        let c = ledger.register(feedItem("3"))
        ledger.resolve([a, b], with: downloaded(100))
        ledger.resolve([a], with: ImageOutcome(status: .failed, error: "late"))
        let contents = ledger.finishContents()
        let items = Array(contents.items)
        #expect(items.map(\.id) == ["1", "2", "3"])
        #expect(items[0].status == .downloaded && items[0].bytes == 100 && items[0].lastSeen == Self.started)
        #expect(items[2].status == .cancelled && items[2].error == "no outcome before the run ended")
        #expect(contents.counts == [.downloaded: 2, .cancelled: 1])
        #expect(contents.downloadedBytes == 200)
        #expect(c == 2)
    }

    @Test func claimFindsTheFirstTokenOfAURL() {
        let ledger = CrawlLedger(journal: nil, runStarted: Self.started, events: { _ in })
        let first = ledger.register(feedItem("1", url: "https://cdn.example/same.jpg"))
        let second = ledger.register(feedItem("2", url: "https://cdn.example/same.jpg"))
        let other = ledger.register(feedItem("3"))
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
            ledger.resolve([ledger.register(feedItem(id, page: page))], with: downloaded(1))
        }
        ledger.resolve([ledger.register(feedItem("1", source: "launches"))], with: ImageOutcome(status: .noImage))
        ledger.resolve([ledger.register(feedItem("9", page: 3))], with: downloaded(2))  // repeated id: first wins
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
        let token = ledger.register(feedItem("1"))
        ledger.resolve([token], with: downloaded(3))
        ledger.flush()
        let lines = try Journal.load(path: dir.file("j"))
        #expect(lines.map(\.id) == ["1"])
        #expect(lines.first?.bytes == 3)
    }
}
