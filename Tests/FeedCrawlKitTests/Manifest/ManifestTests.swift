import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("Manifest store (version 2)")
struct ManifestTests {
    static let may1 = ItemFixtures.may1

    static let run: RunRecord = {
        var run = RunRecord(
            startedAt: may1, finishedAt: may1.addingTimeInterval(9), options: ["pages": "5", "a": ItemFixtures.nasty],
            counts: ["revalidated": 1, "failed": 1], bytes: 99, exitStatus: 0, evicted: 3,
            sources: [.init(source: "launches", pages: 2, items: 20, error: "HTTP 500")])
        run.images = ["revalidated": 1, "failed": 1]
        run.orphansRemoved = 2
        return run
    }()

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func layoutIsVersionFirstOneItemPerLineRunLast() throws {
        var manifest = Manifest(generatedAt: Self.may1, run: Self.run, items: [
            ItemFixtures.item("pixabay", "7", status: .noImage), ItemFixtures.full, ItemFixtures.item("pixabay", "10"),
            ItemFixtures.item("pixabay", "9"),
        ])
        let bytes = ManifestStore.encode(manifest)
        let lines = Self.text(bytes).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "{")
        #expect(lines[1] == #"  "version": 2,"#)
        #expect(lines[2] == #"  "generatedAt": "2024-05-01T12:00:00Z","#)
        #expect(lines[3] == #"  "items": ["#)
        // Stable order: launches before pixabay, numeric ids numerically (9 before 10).
        let expected = [ItemFixtures.full, ItemFixtures.item("pixabay", "7", status: .noImage),
                        ItemFixtures.item("pixabay", "9"), ItemFixtures.item("pixabay", "10")]
        for (index, item) in expected.enumerated() {
            let comma = index == expected.count - 1 ? "" : ","
            #expect(lines[4 + index] == "    " + Self.text(ItemJSON.line(item)) + comma)
        }
        #expect(lines[8] == "  ],")
        #expect(lines[9].hasPrefix(#"  "run": {"#))
        #expect(lines[10] == "}")
        #expect(lines[11] == "")
        #expect(lines.count == 12)
        let json = try JSONValue.parse(Data(bytes))
        #expect(json["version"] == .number(2))
        #expect(json["run"]?["evicted"] == .number(3))
        // Empty manifests keep the same shape.
        manifest.items = []
        manifest.run = nil
        #expect(Self.text(ManifestStore.encode(manifest))
            == "{\n  \"version\": 2,\n  \"generatedAt\": \"2024-05-01T12:00:00Z\",\n  \"items\": [\n  ],\n  \"run\": null\n}\n")
    }

    @Test func roundTripsThroughEncodeDecodeSaveAndLoad() throws {
        var random = TestRandom(seed: 5)
        var items: [ManifestItem] = []
        for n in 0..<300 {
            var item = ItemFixtures.item(&random)
            item.id = "\(item.id)#\(n)"  // keys unique
            items.append(item)
        }
        let manifest = Manifest(generatedAt: Self.may1, run: Self.run, items: items)
        let decoded = try ManifestStore.decode(ManifestStore.encode(manifest))
        #expect(decoded.items == manifest.sortedItems)
        #expect(decoded.run == Self.run)
        #expect(decoded.version == 2)
        #expect(decoded == Manifest(generatedAt: Self.may1, run: Self.run, items: manifest.sortedItems))

        let dir = TestDirectory()
        try ManifestStore.save(manifest, outDirectory: dir.path)
        #expect(try FileIO.read(dir.file("manifest.json")) == ManifestStore.encode(manifest))
        #expect(try ManifestStore.load(outDirectory: dir.path) == decoded)
        #expect(TestDirectory.list(dir.path) == ["manifest.json"])
        // Stable: encoding what was read gives the same bytes.
        #expect(ManifestStore.encode(decoded) == ManifestStore.encode(manifest))
    }

    @Test func aManifestLargerThanTheWriteBufferStreamsIntact() throws {
        let dir = TestDirectory()
        let items = (0..<700).map { i in
            ItemFixtures.item("pixabay", String(i), page: i / 100 + 1, title: String(repeating: "t", count: i),
                              lastSeen: Date(timeIntervalSince1970: 1e9))
        }
        let manifest = Manifest(generatedAt: Date(timeIntervalSince1970: 1e9), run: Self.run, items: items.reversed())
        try ManifestStore.save(manifest, path: dir.file("m.json"))
        let written = try FileIO.read(dir.file("m.json"))
        #expect(written.count > 2 * AtomicFileStream.bufferSize)
        #expect(written == ManifestStore.encode(manifest))
        #expect(try ManifestStore.load(path: dir.file("m.json")).items == items)
    }

    @Test func repeatedKeysAreSavedOnceTheLaterWinning() throws {
        let manifest = Manifest(generatedAt: Self.may1, items: [
            ItemFixtures.item("p", "1", status: .failed), ItemFixtures.item("p", "2"),
            ItemFixtures.item("p", "1", status: .fresh, title: "later"),
        ])
        let decoded = try ManifestStore.decode(ManifestStore.encode(manifest))
        #expect(decoded.items.map(\.id) == ["1", "2"])
        #expect(decoded.items[0].title == "later")
    }

    @Test func stableOrderSortsNumericIdsNumerically() {
        let ids = ["10", "9", "x", "010", "5", "2", "", "0", "00", "X", "é", "18446744073709551616", "18446744073709551615"]
        let sorted = ids.map { ItemFixtures.item("a", $0) }.sorted(by: ManifestItem.stableOrder).map(\.id)
        // Numeric ids first, by value (equal values by text); then the others by bytes.
        #expect(sorted == ["0", "00", "2", "5", "9", "010", "10", "18446744073709551615", "18446744073709551616", "", "X", "x", "é"])
        // Sources by bytes first, whatever the ids.
        let keys = [ItemKey(source: "b", id: "1"), ItemKey(source: "a", id: "z"), ItemKey(source: "B", id: "0")]
        #expect(keys.sorted() == [ItemKey(source: "B", id: "0"), ItemKey(source: "a", id: "z"), ItemKey(source: "b", id: "1")])
    }

    @Test func handEditedMinifiedAndReorderedManifestsAreRead() throws {
        let items = [ItemFixtures.item("p", "2"), ItemFixtures.item("p", "1", status: .failed)]
        let lines = items.map { Self.text(ItemJSON.line($0)) }
        let variants = [
            // Minified, run before the items, keys in another order.
            #"{"run":null,"items":[\#(lines[0]),\#(lines[1])],"generatedAt":"2024-05-01T12:00:00Z","version":2}"#,
            // Pretty printed by hand, with unknown members and whitespace everywhere.
            "{\n\t\"version\" : 2 ,\n \"extra\" : {\"a\":[1,{\"b\":\"]}\"}]},\r\n \"generatedAt\" : \"2024-05-01T12:00:00.000Z\" ,"
                + " \"items\" : [ \n" + lines.joined(separator: " ,\n\n ") + "\n ] \n}\n",
        ]
        for text in variants {
            let manifest = try ManifestStore.decode(Array(text.utf8))
            #expect(manifest.items == items, "\(text.prefix(60))")  // as written, for in-memory use
            #expect(manifest.generatedAt == Self.may1)
            #expect(manifest.version == 2)
        }
    }

    @Test func unreadableManifestsNameTheFileAndTheProblem() throws {
        let dir = TestDirectory()
        #expect(try ManifestStore.load(outDirectory: dir.path) == .empty)
        let path = CacheLayout(outDirectory: dir.path).manifestPath
        let cases: [(String, String)] = [
            ("", "expected a JSON object at byte 0"),
            ("[]", "expected a JSON object at byte 0"),
            (#"{"version": 2, "generatedAt": "2024"#, "unexpected end of file"),
            (#"{"version":3,"generatedAt":"2024-05-01T12:00:00Z","items":[]}"#, "unsupported manifest version 3 (this build reads versions 1 and 2)"),
            (#"{"version":"two","generatedAt":"2024-05-01T12:00:00Z","items":[]}"#, "\"version\" is not a number"),
            (#"{"generatedAt":"2024-05-01T12:00:00Z","items":[]}"#, "missing key \"version\""),
            (#"{"version":2,"items":[]}"#, "missing or invalid \"generatedAt\""),
            (#"{"version":2,"generatedAt":"yesterday","items":[]}"#, "missing or invalid \"generatedAt\""),
            (#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"a","id":"1"}]}"#, #"item at byte 59: missing key "page""#),
            (#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"a","id":"1","page":1,"images":[]} {"#, "expected ',' or ']'"),
            (#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[],"run":{"startedAt":5}}"#, "run: unexpected value at startedAt"),
            (#"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":{}}"#, "expected an array of items"),
        ]
        for (text, reason) in cases {
            try AtomicFile.write(Array(text.utf8), to: path)
            let error = #expect(throws: ManifestStore.Error.self, "\(text)") { try ManifestStore.load(path: path) }
            guard case .corrupt(let named, let why)? = error else {
                Issue.record("\(text): expected .corrupt, got \(String(describing: error))")
                continue
            }
            #expect(named == path)
            #expect(why.contains(reason), "\(text): \(why)")
            #expect(error?.description.hasPrefix("manifest \(path) is unreadable: ") == true)
        }
    }

    @Test func savingIntoAMissingDirectoryReportsIO() {
        let error = #expect(throws: ManifestStore.Error.self) {
            try ManifestStore.save(.empty, outDirectory: "/nonexistent-feedcrawl-dir/out")
        }
        guard case .io(let io) = error else {
            Issue.record("expected an I/O error, got \(String(describing: error))")
            return
        }
        #expect(io.isNotFound)
    }

    @Test func runRecordRedactsSecrets() {
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
