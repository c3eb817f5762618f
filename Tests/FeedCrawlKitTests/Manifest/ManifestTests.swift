import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Manifest model and store")
struct ManifestTests {
    /// 2024-05-01T12:00:00Z
    static let may1 = Date(timeIntervalSince1970: 1_714_564_800)

    static func item(
        _ source: String, _ id: String, page: Int = 1, status: ItemStatus = .downloaded, title: String = "t"
    ) -> ManifestItem {
        ManifestItem(source: source, id: id, page: page, title: title,
                     imageURL: status == .noImage ? nil : "https://cdn.example/\(id).jpg", status: status)
    }

    static let full = ManifestItem(
        source: "launches", id: "109", page: 2, title: "Starlink-15 (v1.0)", imageURL: "https://images2.imgbox.com/9a/96/nLppz9HW_o.png",
        status: .revalidated, file: "cache/ab/x.png", bytes: 12_345, sha256: String(repeating: "a", count: 64),
        contentType: "image/png", width: 150, height: 150, error: nil, author: "SpaceX", etag: "\"abc\"",
        lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", fetchedAt: may1, lastSeen: may1.addingTimeInterval(60),
        details: LaunchDetails(rocketName: "Falcon 9", rocketType: "FT", site: "KSC LC 39A",
                               largePatchURL: "https://images2.imgbox.com/x/large.png", largePatchStatus: .failed))

    @Test func encodedShape() throws {
        var manifest = Manifest(generatedAt: Self.may1, items: [Self.item("pixabay", "7", status: .noImage), Self.full])
        manifest.run = RunRecord(startedAt: Self.may1, counts: ["downloaded": 1], sources: [.init(source: "pixabay", pages: 1, items: 1)])
        let data = try ManifestStore.encode(manifest)
        let text = String(decoding: data, as: UTF8.self)
        let json = try JSONValue.parse(data)

        #expect(json.keys == ["generatedAt", "items", "run", "version"])
        #expect(json["version"] == .number(1))
        #expect(json["generatedAt"] == .string("2024-05-01T12:00:00Z"))
        // Stable order: "launches" before "pixabay".
        #expect(json["items"]?[0]?["source"] == .string("launches"))
        let noImage = try #require(json["items"]?[1])
        #expect(noImage.keys == ["id", "imageURL", "page", "source", "status", "title"])
        #expect(noImage["imageURL"] == .null)
        #expect(noImage["status"] == .string("no-image"))
        let full = try #require(json["items"]?[0])
        #expect(full["fetchedAt"] == .string("2024-05-01T12:00:00Z"))
        #expect(full["lastSeen"] == .string("2024-05-01T12:01:00Z"))
        #expect(full["imageURL"] == .string("https://images2.imgbox.com/9a/96/nLppz9HW_o.png"))
        #expect(full["error"] == nil)
        #expect(full["details"]?.keys == ["largePatchStatus", "largePatchURL", "rocketName", "rocketType", "site"])
        #expect(json["run"]?["finishedAt"] == nil)
        // Only imageURL is ever written as null; pretty printed; sorted keys; slashes unescaped.
        #expect(text.components(separatedBy: "null").count == 2)
        #expect(text.contains("\n  \"generatedAt\""))
        #expect(text.firstRange(of: "\"generatedAt\"")!.lowerBound < text.firstRange(of: "\"items\"")!.lowerBound)
        #expect(text.contains("https://images2"))
        #expect(text.hasSuffix("}\n"))
    }

    @Test func roundTrip() throws {
        var manifest = Manifest(generatedAt: Self.may1, items: [Self.full, Self.item("pixabay", "1", status: .rejected)])
        manifest.run = RunRecord(startedAt: Self.may1, finishedAt: Self.may1.addingTimeInterval(9), options: ["pages": "5"],
                                 counts: ["revalidated": 1, "rejected": 1], bytes: 99, exitStatus: 0, evicted: 3,
                                 sources: [.init(source: "launches", pages: 2, items: 20, error: "HTTP 500")])
        let decoded = try ManifestStore.decode(Array(ManifestStore.encode(manifest)))
        #expect(decoded.items == manifest.sortedItems)
        #expect(decoded == Manifest(generatedAt: manifest.generatedAt, run: manifest.run, items: manifest.sortedItems))
    }

    @Test func stableOrderSortsNumericIdsNumerically() {
        let items = [Self.item("b", "1"), Self.item("a", "10", page: 2), Self.item("a", "9", page: 2),
                     Self.item("a", "x", page: 2), Self.item("a", "010", page: 2), Self.item("a", "5", page: 3),
                     Self.item("a", "2", page: 1)]
        let order = items.sorted(by: ManifestItem.stableOrder).map { "\($0.source)\($0.page):\($0.id)" }
        #expect(order == ["a1:2", "a2:9", "a2:010", "a2:10", "a2:x", "a3:5", "b1:1"])
    }

    @Test func decodingIsLenientAboutUnknownKeysAndFractionalSeconds() throws {
        let json = """
            {"version": 1, "generatedAt": "2024-05-01T12:00:00.250Z", "futureField": {"a": [1, 2]},
             "items": [{"source": "pixabay", "id": "195893", "page": 1, "title": "flower", "imageURL": null,
                        "status": "no-image", "views": 42, "details": {"rocketName": "x", "newThing": true}}]}
            """
        let manifest = try ManifestStore.decode(Array(json.utf8))
        #expect(manifest.generatedAt == Self.may1.addingTimeInterval(0.25))
        #expect(manifest.items.count == 1)
        #expect(manifest.items.first?.status == .noImage)
        #expect(manifest.items.first?.imageURL == nil)
        #expect(manifest.items.first?.details?.rocketName == "x")
        #expect(manifest.run == nil)
        // No items key at all: an empty list.
        #expect(try ManifestStore.decode(Array(#"{"version":1,"generatedAt":"2024-05-01T12:00:00Z"}"#.utf8)).items.isEmpty)
    }

    @Test func loadMissingCorruptAndSave() throws {
        let dir = TestDirectory()
        #expect(try ManifestStore.load(outDirectory: dir.path) == .empty)

        let path = CacheLayout(outDirectory: dir.path).manifestPath
        try AtomicFile.write(Array("{\"version\": 1, \"generatedAt\": \"2024".utf8), to: path)
        let error = #expect(throws: ManifestStore.Error.self) { try ManifestStore.load(outDirectory: dir.path) }
        #expect(error == .corrupt(path: path, reason: "not valid JSON"))
        #expect(error?.description == "manifest \(path) is unreadable: not valid JSON")

        try AtomicFile.write(Array(#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[]}"#.utf8), to: path)
        let versionError = #expect(throws: ManifestStore.Error.self) { try ManifestStore.load(path: path) }
        #expect(versionError?.description.contains("unsupported manifest version 2") == true)

        try AtomicFile.write(Array(#"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"a","id":"1","page":1,"title":"t","imageURL":null}]}"#.utf8), to: path)
        let missingKey = #expect(throws: ManifestStore.Error.self) { try ManifestStore.load(path: path) }
        #expect(missingKey == .corrupt(path: path, reason: "missing key \"status\" at items[0]"))

        let manifest = Manifest(generatedAt: Self.may1, items: [Self.full])
        try ManifestStore.save(manifest, outDirectory: dir.path)
        #expect(try ManifestStore.load(outDirectory: dir.path) == manifest)
        #expect(TestDirectory.list(dir.path) == ["manifest.json"])
    }

    @Test func saveIntoMissingDirectoryReportsIO() {
        let error = #expect(throws: ManifestStore.Error.self) {
            try ManifestStore.save(.empty, outDirectory: "/nonexistent-feedcrawl-dir/out")
        }
        guard case .io(let io) = error else {
            Issue.record("expected an I/O error, got \(String(describing: error))")
            return
        }
        #expect(io.isNotFound)
    }

    @Test func foldingLaterEntriesWin() {
        let base = Manifest(generatedAt: Self.may1, items: [Self.item("p", "1", status: .failed), Self.item("p", "2")])
        let folded = base.folding([
            Self.item("p", "1", status: .downloaded, title: "first retry"),
            Self.item("q", "1", status: .rejected),
            Self.item("p", "1", status: .revalidated, title: "second retry"),
        ])
        #expect(folded.items.map(\.key) == [ItemKey(source: "p", id: "1"), ItemKey(source: "p", id: "2"), ItemKey(source: "q", id: "1")])
        #expect(folded.items[0].title == "second retry")
        #expect(folded.items[0].status == .revalidated)
        #expect(folded.generatedAt == base.generatedAt)
        #expect(base.folding([]).items == base.sortedItems)
    }

    @Test func runRecordHelpers() {
        let items = [Self.item("p", "1"), Self.item("p", "2"), Self.item("p", "3", status: .noImage)]
        #expect(RunRecord.counts(of: items) == ["downloaded": 2, "no-image": 1])
        let redacted = RunRecord.redacted([
            "pixabay-key": "abc123", "url": "https://pixabay.com/api/?key=abc123&q=yellow+flowers&api_token=t",
            "pages": "5", "Authorization": "Bearer x",
        ])
        #expect(redacted == [
            "pixabay-key": "***", "url": "https://pixabay.com/api/?key=***&q=yellow+flowers&api_token=***",
            "pages": "5", "Authorization": "***",
        ])
    }

    @Test func statusRawValues() {
        #expect(ItemStatus.allCases.map(\.rawValue)
            == ["downloaded", "fresh", "revalidated", "failed", "rejected", "no-image", "cancelled"])
        #expect(ItemStatus.allCases.filter(\.hasImage) == [.downloaded, .fresh, .revalidated])
    }
}
