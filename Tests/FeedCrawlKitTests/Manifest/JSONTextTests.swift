import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// The hand-written JSON (journal lines, manifest items) must be byte-identical to what
/// `ManifestCoding`'s `JSONEncoder`s write: those are the oracle here.
@Suite("JSONText against JSONEncoder")
struct JSONTextTests {
    static let nasty = "q\"\\/ \u{1}\u{1f}\u{7f}\n\t\r\u{8}\u{c} \u{2028}é😀 ../../etc \u{1b}[31m"

    static let full = ManifestItem(
        source: "launches", id: "109", page: 2, title: "Starlink-15 " + nasty,
        imageURL: "https://images2.imgbox.com/9a/96/nLppz9HW_o.png?a=1&b=/x",
        status: .revalidated, file: "cache/ab/x.png", bytes: 12_345, sha256: String(repeating: "a", count: 64),
        contentType: "image/png", width: 150, height: 0, error: "HTTP 503: " + nasty, author: "SpaceX",
        etag: "W/\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
        fetchedAt: Date(timeIntervalSince1970: 1_714_564_800.999), lastSeen: Date(timeIntervalSince1970: -0.25),
        details: LaunchDetails(rocketName: "Falcon 9", rocketType: "FT", site: "KSC LC 39A",
                               largePatchURL: "https://images2.imgbox.com/x/large.png", largePatchFile: "cache/cd/y.png",
                               largePatchStatus: .failed, largePatchSHA256: String(repeating: "b", count: 64),
                               largePatchBytes: 98_765, largePatchETag: "\"e\"", largePatchLastModified: "Thu, 22 Oct 2015",
                               largePatchFetchedAt: Date(timeIntervalSince1970: 1_714_564_801),
                               largePatchError: "HTTP 404: " + nasty, error: "details: " + nasty))

    static let items: [ManifestItem] = [
        full,
        ManifestItem(source: "pixabay", id: "7", page: 1, title: "", imageURL: nil, status: .noImage),
        ManifestItem(source: "pixabay", id: "-1", page: Int.max, title: "t", imageURL: "http://a/b.jpg",
                     status: .failed, bytes: Int64.min, width: Int.min, details: LaunchDetails()),
        ManifestItem(source: "s", id: nasty, page: 0, title: nasty, imageURL: nasty, status: .cancelled,
                     author: nasty, fetchedAt: Date(timeIntervalSince1970: 253_402_300_799.5),
                     lastSeen: Date(timeIntervalSince1970: -62_135_596_800)),
    ]

    static func compact(_ item: ManifestItem) -> [UInt8] {
        var json = JSONText(pretty: false)
        item.write(to: &json)
        return json.bytes
    }

    static func pretty(_ item: ManifestItem) -> [UInt8] {
        var json = JSONText(pretty: true)
        item.write(to: &json)
        return json.bytes
    }

    @Test(arguments: items.indices)
    func itemMatchesTheEncoders(index: Int) throws {
        let item = Self.items[index]
        #expect(Self.compact(item) == Array(try ManifestCoding.compactEncoder().encode(item)))
        #expect(Self.pretty(item) == Array(try ManifestCoding.prettyEncoder().encode(item)))
    }

    /// Strings are escaped eight bytes at a time where nothing needs escaping: every mix and
    /// position of quotes, backslashes, control characters and multi-byte text must still match.
    @Test func stringsMatchTheEncoderAtEveryPosition() throws {
        let pieces = ["a", "bcdefgh", "\"", "\\", "/", "\n", "\u{0}", "\u{1f}", " ", "\u{7f}", "é", "😀", "\u{2028}",
                      "0123456789abcdef", "\u{8}\u{c}\r\t", "~"]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % 1_000_003)
        }
        let encoder = ManifestCoding.compactEncoder()
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<(next() % 12) { text += pieces[next() % pieces.count] }
            var json = JSONText(pretty: false)
            json.string(text)
            #expect(json.bytes == Array(try encoder.encode(text)), "\(text.debugDescription)")
        }
    }

    @Test func journalLineIsTheCompactItemAndANewline() throws {
        var json = JSONText(pretty: false)
        Self.full.journalLine(into: &json)
        #expect(json.bytes == Array(try ManifestCoding.compactEncoder().encode(Self.full)) + [0x0A])
    }

    /// A property added to the model must be added to the writer too.
    @Test func writerCoversEveryStoredProperty() {
        #expect(Mirror(reflecting: Self.full).children.count == ManifestItem.jsonTextPropertyCount)
        #expect(Mirror(reflecting: LaunchDetails()).children.count == LaunchDetails.jsonTextPropertyCount)
    }

    @Test func datesMatchFoundationAcrossTheRange() throws {
        var seed: UInt64 = 42
        var seconds: [Double] = [0, -1, 1, 86_399.999, -86_400.5, 951_782_400, 4_107_542_400, -12_212_553_600,
                                 -12_212_553_601, 253_402_300_799, 253_402_300_800, -62_135_596_800]
        for _ in 0..<300 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            seconds.append(Double(seed % 300_000_000_000) - 30_000_000_000 + Double(seed % 1000) / 1000)
        }
        let encoder = ManifestCoding.compactEncoder()
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            var json = JSONText(pretty: false)
            json.date(date)
            let expected = Array(try encoder.encode([date]).dropFirst().dropLast())
            #expect(json.bytes == expected, "\(value)")
        }
    }

    @Test func manifestFileIsTheEncodedManifest() throws {
        let dir = TestDirectory()
        var manifest = Manifest(generatedAt: Date(timeIntervalSince1970: 1_714_564_800), items: Self.items)
        manifest.run = RunRecord(
            startedAt: Date(timeIntervalSince1970: 1_714_564_000), options: ["b": "1", "a": Self.nasty],
            counts: ["downloaded": 1], sources: [.init(source: "pixabay", pages: 1, items: 1, error: Self.nasty)])
        for items in [Self.items, [], [Self.full]] {
            manifest.items = items
            try ManifestStore.save(manifest, path: dir.file("m.json"))
            let written = try FileIO.read(dir.file("m.json"))
            #expect(written == Array(try ManifestStore.encode(manifest)), "\(items.count) items")
            // (Fractional seconds are dropped by the format, so compare what survives.)
            let loaded = try ManifestStore.load(path: dir.file("m.json"))
            #expect(loaded.items.map(\.key) == manifest.sortedItems.map(\.key))
            #expect(loaded.run == manifest.run)
        }
        #expect(TestDirectory.list(dir.path) == ["m.json"])
    }

    @Test func manifestLargerThanTheWriteBufferStreamsIntact() throws {
        let dir = TestDirectory()
        let items = (0..<600).map { i in
            ManifestItem(source: "pixabay", id: String(i), page: i / 100 + 1, title: String(repeating: "t", count: i),
                         imageURL: "https://cdn.example/\(i).jpg", status: .downloaded,
                         sha256: String(repeating: "c", count: 64), lastSeen: Date(timeIntervalSince1970: 1e9))
        }
        let manifest = Manifest(generatedAt: Date(timeIntervalSince1970: 1e9), items: items.reversed())
        try ManifestStore.save(manifest, path: dir.file("m.json"))
        let written = try FileIO.read(dir.file("m.json"))
        #expect(written.count > 2 * AtomicFileStream.bufferSize)
        #expect(written == Array(try ManifestStore.encode(manifest)))
    }
}
