import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// The fast manifest reader must agree with JSONDecoder whenever it answers at all.
@Suite("Manifest fast decoder")
struct ManifestFastDecoderTests {
    static func slow(_ bytes: [UInt8]) -> Manifest? {
        try? ManifestCoding.decoder().decode(Manifest.self, from: Data(bytes))
    }

    static func written(_ items: [ManifestItem]) throws -> [UInt8] {
        var manifest = Manifest(generatedAt: Date(timeIntervalSince1970: 1_714_564_800), items: items)
        manifest.run = RunRecord(
            startedAt: Date(timeIntervalSince1970: 1_714_564_000), options: ["a": JSONTextTests.nasty],
            counts: ["downloaded": 1], sources: [.init(source: "pixabay", pages: 1, items: 1, error: "x")])
        return Array(try ManifestStore.encode(manifest))
    }

    /// Whole-second dates survive the format, so compare items written with such dates (and
    /// after 1582: earlier ones are left to JSONDecoder, see `declinesWhatItDoesNotKnow`).
    static let items: [ManifestItem] = JSONTextTests.items.map { item in
        func whole(_ date: Date?) -> Date? {
            date.map { Date(timeIntervalSince1970: max(0, $0.timeIntervalSince1970.rounded(.down))) }
        }
        var item = item
        item.fetchedAt = whole(item.fetchedAt)
        item.lastSeen = whole(item.lastSeen)
        return item
    }

    @Test func writtenManifestsAreReadFastAndIdentically() throws {
        for count in [0, 1, Self.items.count] {
            let bytes = try Self.written(Array(Self.items.prefix(count)))
            let decoded = ManifestFastDecoder.decode(bytes)
            try #require(decoded != nil, "\(count) items")
            let fast = try #require(decoded)
            #expect(fast == Self.slow(bytes))
            #expect(try ManifestStore.decode(bytes) == fast)
        }
    }

    @Test func compactAndReorderedJSONAgrees() throws {
        let text = #"{"version":1,"items":[{"title":"t","status":"fresh","page":3,"id":"9","source":"s","imageURL":null,"# +
            #""bytes":null,"details":{"site":"x","largePatchStatus":null},"unknown":[1,{"a":"\u00e9"}],"# +
            #""fetchedAt":"2024-02-29T23:59:59Z"}],"generatedAt":"2024-05-01T12:00:00Z","extra":{"k":[true,false]}}"#
        let bytes = Array(text.utf8)
        let fast = try #require(ManifestFastDecoder.decode(bytes))
        #expect(fast == Self.slow(bytes))
        #expect(fast.items.first?.fetchedAt == Date(timeIntervalSince1970: 1_709_251_199))
    }

    /// Declined: JSONDecoder decides (and reports) these.
    @Test(arguments: [
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":1,"title":"t"}]}"#,  // no status
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":1,"title":"t","status":"odd"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":"1","title":"t","status":"fresh"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","id":"2","page":1,"title":"t","status":"fresh"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":1,"title":"t","status":"fresh","lastSeen":"2024-05-01T12:00:00.5Z"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":1,"title":"t","status":"fresh","lastSeen":"2023-02-29T12:00:00Z"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":1.5,"title":"t","status":"fresh"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":null}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[]} x"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"\ud800","id":"1","page":1,"title":"t","status":"fresh"}]}"#,
        #"{"version":1,"generatedAt":"2024-05-01T12:00:00Z","items":[{"source":"s","id":"1","page":1,"title":"t","status":"fresh","lastSeen":"0001-01-03T00:00:00Z"}]}"#,
    ])
    func declinesWhatItDoesNotKnow(text: String) {
        #expect(ManifestFastDecoder.decode(Array(text.utf8)) == nil)
    }

    @Test func errorsStillComeFromJSONDecoder() {
        let text = #"{"version":2,"generatedAt":"2024-05-01T12:00:00Z","items":[]}"#
        #expect(ManifestFastDecoder.decode(Array(text.utf8)) == nil)
        #expect(throws: (any Error).self) { try ManifestStore.decode(Array(text.utf8)) }
    }

    @Test func datesMatchFoundationsParser() {
        var seed: UInt64 = 7
        for _ in 0..<500 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Double(seed % 250_000_000_000) - 12_000_000_000
            var json = JSONText(pretty: false)
            json.date(Date(timeIntervalSince1970: seconds))
            let text = String(decoding: json.bytes.dropFirst().dropLast(), as: UTF8.self)
            if text.hasPrefix("15") && text < "1583" { continue }
            #expect(ManifestFastDecoder.parseDate(text) == ManifestCoding.parseDate(text), "\(text)")
        }
    }
}
