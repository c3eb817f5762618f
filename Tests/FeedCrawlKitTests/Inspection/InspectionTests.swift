import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlStorage

@Suite("Inspection: filter, summary, listing")
struct InspectionTests {
    static func image(
        _ variant: String, _ status: ItemStatus, file: String? = nil, bytes: Int64? = nil, error: String? = nil,
        url: String? = nil
    ) -> ImageRecord {
        ImageRecord(variant: variant, url: url ?? "http://h/\(variant).jpg", status: status, file: file, bytes: bytes,
                    width: file == nil ? nil : 150, height: file == nil ? nil : 99, error: error)
    }

    static func item(_ source: String, _ id: String, title: String = "t", error: String? = nil, _ images: [ImageRecord]) -> ManifestItem {
        ManifestItem(source: source, id: id, page: 1, title: title, error: error, images: images)
    }

    static func simple(_ source: String, _ id: String, _ status: ItemStatus) -> ManifestItem {
        item(source, id, status == .noImage ? [] : [image("preview", status)])
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
        let error = #expect(throws: ItemFilter.InvalidStatus.self) { try ItemFilter.parseStatuses("broken") }
        #expect(error?.description.contains("downloaded, fresh") == true)
        #expect(throws: ItemFilter.InvalidStatus.self) { try ItemFilter.parseStatuses(",") }
    }

    @Test func filterKeepsMatchingItemsInStableOrderByTheDerivedStatus() {
        let manifest = Manifest(generatedAt: Date(), items: [
            Self.simple("b", "2", .failed), Self.simple("a", "10", .failed), Self.simple("a", "9", .downloaded),
            Self.simple("a", "3", .failed),
            // One failed variant makes the item failed.
            Self.item("a", "4", [Self.image("preview", .fresh), Self.image("large", .failed)]),
        ])
        #expect(manifest.sortedItems.filter(ItemFilter(statuses: [.failed]).matches).map(\.id) == ["3", "4", "10", "2"])
        #expect(manifest.sortedItems.filter(ItemFilter(statuses: [.failed], sources: ["a"]).matches).map(\.id) == ["3", "4", "10"])
        #expect(manifest.sortedItems.filter(ItemFilter(statuses: [.fresh]).matches).isEmpty)
        #expect(manifest.sortedItems.filter(ItemFilter().matches).count == 5)
    }

    @Test func summaryCountsItemsFilesOnceAndErrorsPerImage() async throws {
        let f1 = ItemFixtures.file(1), f2 = ItemFixtures.file(2, ext: "png")
        let manifest = Manifest(generatedAt: Date(timeIntervalSince1970: 1_700_000_000), items: [
            Self.item("pixabay", "1", [Self.image("preview", .downloaded, file: f1, bytes: 100), Self.image("large", .downloaded, file: f2, bytes: 900)]),
            Self.item("launches", "2", [Self.image("small", .fresh, file: f1, bytes: 100)]),  // shares f1
            Self.item("pixabay", "3", [Self.image("preview", .failed, error: "HTTP 404")]),
            Self.item("pixabay", "4", [Self.image("preview", .fresh, file: f1, bytes: 100), Self.image("large", .failed, error: "HTTP 404")]),
            Self.item("pixabay", "5", [Self.image("preview", .rejected, error: "wrong magic bytes")]),
            Self.item("pixabay", "6", error: "missing id", []),
            Self.item("launches", "7", []),
        ])
        let repository = try await ArchiveFixture.commit(Backends.memory(), items: manifest.items)
        let summary = ManifestSummary(repository)
        #expect(summary.items == 7)
        #expect(summary.sources.map(\.source) == ["launches", "pixabay"])
        #expect(summary.sources[1].counts == ["downloaded": 1, "failed": 2, "rejected": 2])
        #expect(summary.sources[1].total == 5)
        #expect(summary.totals.counts == ["downloaded": 1, "fresh": 1, "failed": 2, "rejected": 2, "no-image": 1])
        #expect(summary.files == 2)
        #expect(summary.bytesOnDisk == 1000)
        #expect(summary.commonErrors == [
            .init(error: "HTTP 404", count: 2), .init(error: "missing id", count: 1), .init(error: "wrong magic bytes", count: 1),
        ])
        #expect(summary.statusesPresent == [.downloaded, .fresh, .failed, .rejected, .noImage])
        #expect(ManifestSummary(repository, errorLimit: 1).commonErrors.count == 1)

        let table = summary.render(.table, manifestPath: "out/manifest.json")
        #expect(table.contains("pixabay"))
        #expect(table.contains("HTTP 404"))
        let csv = summary.render(.csv, manifestPath: "")
        #expect(csv.hasPrefix("source,status,count\n"))
        #expect(csv.contains("pixabay,failed,2\n"))
        #expect(csv.contains("total,downloaded,1\n"))
        let json = summary.render(.json, manifestPath: "")
        #expect(try ManifestCoding.decoder().decode(ManifestSummary.self, from: Data(json.utf8)) == summary)
    }

    @Test func csvHasOneRowPerImage() {
        let items = [
            Self.item("pixabay", "1", title: "two, images", [
                Self.image("preview", .downloaded, file: ItemFixtures.file(1), bytes: 100),
                Self.image("large", .failed, error: "HTTP 404", url: "https://cdn/large.jpg"),
            ]),
            Self.item("pixabay", "2", error: "missing id", []),
            Self.item("launches", "3", []),
            // A listing without a usable id still names its image: the item's error on its row.
            Self.item("pixabay", "page1-index4", error: "missing id", [Self.image("preview", .downloaded, file: ItemFixtures.file(4), bytes: 7)]),
        ]
        let lines = ItemListing.render(items, format: .csv).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "source,id,page,status,title,variant,imageStatus,file,bytes,width,height,sha256,error,url")
        #expect(lines[1] == "pixabay,1,1,failed,\"two, images\",preview,downloaded,\(ItemFixtures.file(1)),100,150,99,,,http://h/preview.jpg")
        #expect(lines[2] == "pixabay,1,1,failed,\"two, images\",large,failed,,,,,,HTTP 404,https://cdn/large.jpg")
        #expect(lines[3] == "pixabay,2,1,rejected,t,,,,,,,,missing id,")
        #expect(lines[4] == "launches,3,1,no-image,t,,,,,,,,,")
        #expect(lines[5] == "pixabay,page1-index4,1,rejected,t,preview,downloaded,\(ItemFixtures.file(4)),7,150,99,,missing id,http://h/preview.jpg")
        #expect(lines[6] == "")
        #expect(lines.count == 7)
    }

    @Test func tableShowsTheStoredFileOrTheError() {
        let items = [
            Self.item("s", "1", title: "ok", [Self.image("preview", .downloaded, file: ItemFixtures.file(1))]),
            Self.item("s", "2", title: "bad", [Self.image("preview", .fresh, file: ItemFixtures.file(2)), Self.image("large", .failed, error: "HTTP 500")]),
            Self.item("s", "3", title: "listing", error: "missing id", []),
        ]
        let lines = ItemListing.render(items, format: .table).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains(ItemFixtures.file(1)) && lines[1].contains("downloaded"))
        #expect(lines[2].contains("HTTP 500") && lines[2].contains("failed"))
        #expect(lines[3].contains("missing id") && lines[3].contains("rejected"))
        #expect(ItemListing.render([], format: .table) == "No matching items.\n")
    }

    /// Issue 35, point 5: on a terminal of 80 columns a table row is one line: the url, title
    /// and file-or-error columns give way (cut with `…`); the other columns stay whole.
    @Test func aTableRowFitsTheWidthItIsGiven() {
        let long = String(repeating: "very long title ", count: 6)
        let items = [
            Self.item("pixabay", "1234567", title: long, [Self.image("preview", .downloaded, file: ItemFixtures.file(1),
                url: "https://cdn.example.org/" + String(repeating: "path/", count: 14) + "image.jpg")]),
            Self.item("pixabay", "2", title: "short", [Self.image("preview", .failed, error: "HTTP 404 " + long)]),
        ]
        let whole = ItemListing.render(items, format: .table).split(separator: "\n")
        #expect(whole.contains { $0.count > 160 })
        for width in [80, 100] {
            let lines = ItemListing.render(items, format: .table, maxWidth: width).split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.count <= width }, "\(lines.map(\.count))")
            #expect(lines[1].hasPrefix("pixabay  1234567  downloaded  "), "\(lines[1])")
            #expect(lines[1].contains("…") && lines[2].contains("failed"))
        }
    }

    @Test func jsonIsTheManifestsOwnItemLines() throws {
        let items = [ItemFixtures.full, ItemFixtures.item("pixabay", "7", status: .noImage)]
        let json = ItemListing.render(items, format: .json)
        #expect(json == "[\n  " + String(decoding: ItemJSON.line(items[0]), as: UTF8.self) + ",\n  "
            + String(decoding: ItemJSON.line(items[1]), as: UTF8.self) + "\n]\n")
        #expect(try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(json.utf8)) == items)
        #expect(ItemListing.render([], format: .json) == "[]\n")
    }

    @Test func feedTextIsSanitizedInTablesAndCSVAndEscapedInJSON() throws {
        let evil = "nice\u{1B}]0;pwned\u{07} title\u{1B}[2J"
        let items = [Self.item("pixabay", "1", title: evil, [Self.image("preview", .failed, error: "bad\u{1B}[31m")])]
        let table = ItemListing.render(items, format: .table)
        #expect(!table.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(table.contains("nice title"))
        let csv = ItemListing.render(items, format: .csv)
        #expect(!csv.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        let json = ItemListing.render(items, format: .json)
        #expect(!json.unicodeScalars.contains { $0.value == 0x1B })  // escaped as \u001b
        #expect(try ManifestCoding.decoder().decode([ManifestItem].self, from: Data(json.utf8)).first?.title == evil)
    }
}
