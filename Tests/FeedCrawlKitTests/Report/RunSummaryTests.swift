import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Run summary JSON")
struct RunSummaryTests {
    @Test func summaryHasEveryStatusAndPerSourceFigures() throws {
        let start = Date(timeIntervalSince1970: 1_714_564_800)
        var pixabay = SourceReport(name: "pixabay")
        pixabay.pages = 2
        pixabay.items = 40
        pixabay.warnings = ["page 2: HTTP 500"]
        var launches = SourceReport(name: "launches")
        launches.failure = "unreachable"
        let report = CrawlReport(
            startedAt: start, finishedAt: start.addingTimeInterval(1.23456), counts: [.downloaded: 38, .failed: 2],
            bytesDownloaded: 9000, sources: [pixabay, launches], storageProblem: nil, cancelled: false,
            manifestPath: "out/manifest.json")
        let summary = RunSummary(report: report, exitStatus: 3,
                                 sourceCounts: ["pixabay": [.downloaded: 38, .failed: 2]], contactSheet: "out/index.html")
        let line = try summary.jsonLine()
        #expect(!line.contains("\n"))
        let value = try JSONValue.parse(Data(line.utf8))
        #expect(value["exitStatus"] == .number(3))
        #expect(value["items"] == .number(40))
        #expect(value["seconds"] == .number(1.235))
        #expect(value["bytes"] == .number(9000))
        #expect(value["counts"]?.keys == ItemStatus.allCases.map(\.rawValue).sorted())
        #expect(value["counts"]?["failed"] == .number(2))
        #expect(value["counts"]?["rejected"] == .number(0))
        #expect(value["sources"]?[0]?["name"] == .string("pixabay"))
        #expect(value["sources"]?[0]?["pages"] == .number(2))
        #expect(value["sources"]?[0]?["counts"]?["downloaded"] == .number(38))
        #expect(value["sources"]?[0]?["warnings"]?[0] == .string("page 2: HTTP 500"))
        #expect(value["sources"]?[1]?["error"] == .string("unreachable"))
        #expect(value["startedAt"] == .string("2024-05-01T12:00:00.000Z"))  // run times keep milliseconds
        #expect(value["contactSheet"] == .string("out/index.html"))
        let decoded = try ManifestCoding.decoder().decode(RunSummary.self, from: Data(line.utf8))
        #expect(decoded.sources == summary.sources)
    }

    @Test func failureLine() throws {
        let value = try JSONValue.parse(Data(RunSummary.failureLine(exitStatus: 75, message: "lock \"held\"").utf8))
        #expect(value == .object(["exitStatus": .number(75), "error": .string("lock \"held\"")]))
    }
}
