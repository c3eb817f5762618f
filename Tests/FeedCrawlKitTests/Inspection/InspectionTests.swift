import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit

@Suite("Inspection")
struct InspectionTests {
    static func item(
        _ source: String, _ id: String, _ status: ItemStatus, title: String = "t", file: String? = nil,
        bytes: Int64? = nil, error: String? = nil
    ) -> ManifestItem {
        ManifestItem(
            source: source, id: id, page: 1, title: title, imageURL: "http://h/\(id)", status: status,
            file: file, bytes: bytes, error: error)
    }

    @Test func csvFieldsAreQuotedAndSafe() {
        #expect(CSV.field("plain") == "plain")
        #expect(CSV.field("a,b") == "\"a,b\"")
        #expect(CSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSV.field(" padded") == "\" padded\"")
        #expect(CSV.field("line\nbreak") == "line break")
        #expect(CSV.field("\u{1B}[31mred\u{1B}[0m") == "red")
        #expect(CSV.field("=HYPERLINK(\"x\")") == "\"'=HYPERLINK(\"\"x\"\")\"")
        #expect(CSV.field("@cmd") == "'@cmd")
        #expect(CSV.field("-12") == "-12")
        #expect(CSV.row(["a", "b,c", ""]) == "a,\"b,c\",")
        #expect(CSV.document(header: ["h1", "h2"], rows: [["1", "2"]]) == "h1,h2\n1,2\n")
    }

    @Test func statusListsParseAndUnknownNamesAreExplained() throws {
        #expect(try ItemFilter.parseStatuses("failed, rejected") == [.failed, .rejected])
        #expect(try ItemFilter.parseStatuses("no-image") == [.noImage])
        #expect(throws: ItemFilter.InvalidStatus.self) { try ItemFilter.parseStatuses("broken") }
        do {
            _ = try ItemFilter.parseStatuses("broken")
        } catch {
            #expect(error.description.contains("downloaded, fresh"))
        }
    }

    @Test func filterKeepsMatchingItemsInStableOrder() {
        let manifest = Manifest(generatedAt: Date(), items: [
            Self.item("b", "2", .failed), Self.item("a", "10", .failed), Self.item("a", "9", .downloaded),
            Self.item("a", "3", .failed),
        ])
        let failed = ItemFilter(statuses: [.failed]).apply(to: manifest)
        #expect(failed.map(\.id) == ["3", "10", "2"])
        let fromA = ItemFilter(statuses: [.failed], sources: ["a"]).apply(to: manifest)
        #expect(fromA.map(\.id) == ["3", "10"])
        #expect(ItemFilter().apply(to: manifest).count == 4)
    }

    @Test func summaryCountsBySourceAndStatusFilesAndErrors() {
        let f1 = "cache/aa/" + String(repeating: "a", count: 64) + ".jpg"
        // Whole seconds: the JSON form keeps no fractions.
        let manifest = Manifest(generatedAt: Date(timeIntervalSince1970: 1_700_000_000), items: [
            Self.item("pixabay", "1", .downloaded, file: f1, bytes: 100),
            Self.item("launches", "2", .fresh, file: f1, bytes: 100),
            Self.item("pixabay", "3", .failed, error: "HTTP 404"),
            Self.item("pixabay", "4", .failed, error: "HTTP 404"),
            Self.item("pixabay", "5", .rejected, error: "wrong magic bytes"),
            Self.item("launches", "6", .noImage),
        ])
        let summary = ManifestSummary(manifest)
        #expect(summary.items == 6)
        #expect(summary.sources.map(\.source) == ["launches", "pixabay"])
        #expect(summary.sources[1].counts == ["downloaded": 1, "failed": 2, "rejected": 1])
        #expect(summary.sources[1].total == 4)
        #expect(summary.totals.counts["fresh"] == 1)
        #expect(summary.files == 1)
        #expect(summary.bytesOnDisk == 100)
        #expect(summary.commonErrors == [.init(error: "HTTP 404", count: 2), .init(error: "wrong magic bytes", count: 1)])
        #expect(summary.statusesPresent == [.downloaded, .fresh, .failed, .rejected, .noImage])

        let table = summary.render(.table, manifestPath: "out/manifest.json")
        #expect(table.contains("pixabay"))
        #expect(table.contains("HTTP 404"))
        let csv = summary.render(.csv, manifestPath: "")
        #expect(csv.hasPrefix("source,status,count\n"))
        #expect(csv.contains("pixabay,failed,2\n"))
        #expect(csv.contains("total,downloaded,1\n"))
        let json = summary.render(.json, manifestPath: "")
        let decoded = try? ManifestCoding.decoder().decode(ManifestSummary.self, from: Data(json.utf8))
        #expect(decoded == summary)
    }

    @Test func feedTextIsSanitizedInTablesAndKeptInJSON() {
        let evil = "nice\u{1B}]0;pwned\u{07} title\u{1B}[2J"
        let items = [Self.item("pixabay", "1", .failed, title: evil, error: "bad\u{1B}[31m")]
        let table = ItemListing.render(items, format: .table)
        #expect(!table.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(table.contains("nice title"))
        let csv = ItemListing.render(items, format: .csv)
        #expect(!csv.unicodeScalars.contains { $0.value == 0x1B })
        let json = ItemListing.render(items, format: .json)
        #expect(!json.unicodeScalars.contains { $0.value == 0x1B })  // escaped as \u001b
        let decoded = try? ManifestCoding.decoder().decode([ManifestItem].self, from: Data(json.utf8))
        #expect(decoded?.first?.title == evil)
    }

    @Test func listingShowsTheFileOrTheError() {
        let items = [
            Self.item("s", "1", .downloaded, title: "ok", file: "cache/ab/x.jpg"),
            Self.item("s", "2", .failed, title: "bad", error: "HTTP 500"),
        ]
        let lines = ItemListing.render(items, format: .table).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1].contains("cache/ab/x.jpg") && lines[1].contains("downloaded"))
        #expect(lines[2].contains("HTTP 500") && lines[2].contains("failed"))
        #expect(ItemListing.render([], format: .table) == "No matching items.\n")
        let csv = ItemListing.render(items, format: .csv).split(separator: "\n")
        #expect(csv[0] == ItemListing.csvHeader.joined(separator: ","))
        #expect(csv[2].hasPrefix("s,2,1,failed,bad,,"))
    }
}
