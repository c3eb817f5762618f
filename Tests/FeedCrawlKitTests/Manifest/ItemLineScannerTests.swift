import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// The strict scanner that reads item lines without `JSONDecoder` must read every line
/// `ItemJSON.write` produces, exactly as `JSONDecoder` does, and must never accept a line that
/// `JSONDecoder` reads differently (or not at all).
@Suite("ItemLineScanner against JSONDecoder")
struct ItemLineScannerTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// What `ItemJSON.decode` reads with `JSONDecoder` alone: a version-1 item (no `images`,
    /// an `imageURL`) converted, else a version-2 item; nil when it throws.
    static func jsonDecoderReading(_ bytes: [UInt8]) -> ManifestItem? {
        struct Shape: Decodable {
            var isVersion1: Bool
            enum Keys: String, CodingKey { case images, imageURL }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                isVersion1 = !c.contains(.images) && c.contains(.imageURL)
            }
        }
        guard let shape = try? JSONDecoder().decode(Shape.self, from: Data(bytes)) else { return nil }
        if shape.isVersion1 {
            return try? ManifestCoding.decoder().decode(ManifestItemV1.self, from: Data(bytes)).converted(.init())
        }
        return try? ItemJSON.foundationDecode(bytes)
    }

    @Test func generatedItemsReadBackIdenticallyThroughBoth() throws {
        var random = TestRandom(seed: 11)
        for n in 0..<3000 {
            let item = ItemFixtures.item(&random)
            let line = ItemJSON.line(item)
            #expect(!line.contains(0x0A), "item \(n): a line holds no newline")
            let scanned = ItemJSON.scannerDecode(line)
            #expect(scanned != nil, "item \(n): the scanner must read what ItemJSON writes: \(Self.text(line))")
            #expect(scanned == item, "item \(n)")
            #expect(try ItemJSON.foundationDecode(line) == item, "item \(n)")
            #expect(try ItemJSON.decode(line) == item, "item \(n)")
        }
    }

    @Test func fixedItemsReadBackIdentically() throws {
        let items = [
            ItemFixtures.full, ItemFixtures.item("pixabay", "7", status: .noImage),
            ManifestItem(source: "", id: "", page: Int.min, title: "", error: "", details: LaunchDetails(), images: []),
            ManifestItem(
                source: ItemFixtures.nasty, id: ItemFixtures.nasty, page: Int.max, title: ItemFixtures.nasty,
                author: ItemFixtures.nasty, pageURL: ItemFixtures.nasty, lastSeen: Date(timeIntervalSince1970: 253_402_300_799),
                images: [ImageRecord(
                    variant: ItemFixtures.nasty, url: ItemFixtures.nasty, status: .cancelled, bytes: Int64.min,
                    width: Int.min, height: Int.max, fetchedAt: Date(timeIntervalSince1970: -12_212_553_600))]),
        ]
        for item in items {
            let line = ItemJSON.line(item)
            #expect(ItemJSON.scannerDecode(line) == item, "\(Self.text(line))")
            #expect(try ItemJSON.foundationDecode(line) == item)
        }
    }

    /// Mutated lines: the scanner declines, or reads what `JSONDecoder` reads. Many mutants stay
    /// valid items (whitespace, escapes, unknown keys, other values), so the scanner's answers
    /// are compared, not only its refusals.
    @Test func mutatedLinesAreDeclinedOrReadAsJSONDecoderReadsThem() {
        var random = TestRandom(seed: 29)
        var total = 0, accepted = 0, disagreements = 0
        for n in 0..<600 {
            let line = ItemJSON.line(ItemFixtures.item(&random))
            for (m, mutant) in LineMutations.mutants(of: line, count: 40, &random).enumerated() {
                total += 1
                // Twice mutated too: edits interact (a repeated key with an escaped one, …).
                let twice = LineMutations.mutate(mutant, &random)
                for candidate in [mutant, twice] {
                    guard let scanned = ItemJSON.scannerDecode(candidate) else { continue }
                    accepted += 1
                    let decoded = Self.jsonDecoderReading(candidate)
                    if decoded != scanned {
                        disagreements += 1
                        if disagreements <= 5 {
                            Issue.record("line \(n) mutant \(m): the scanner read \(String(describing: scanned)), JSONDecoder \(String(describing: decoded)): \(Self.text(candidate))")
                        }
                    }
                }
            }
        }
        #expect(disagreements == 0)
        // Not vacuous: a good share of the mutants are items the scanner still reads.
        #expect(accepted > total / 5, "\(accepted) of \(2 * total) mutants accepted")
    }

    /// Every prefix of a line is declined or agrees (a torn journal line is common).
    @Test func truncatedLinesNeverDisagree() {
        let line = ItemJSON.line(ItemFixtures.full)
        for cut in 0..<line.count {
            let prefix = Array(line[..<cut])
            #expect(ItemJSON.scannerDecode(prefix) == nil, "cut at \(cut)")
            #expect(throws: (any Error).self) { try ItemJSON.foundationDecode(prefix) }
        }
    }

    /// Forms the scanner leaves to `JSONDecoder`, which still reads them (`ItemJSON.decode`).
    @Test(arguments: [
        #"{"source":"s","id":"1","page":1,"title":"t","lastSeen":"2024-05-01T12:00:00.5Z","images":[]}"#,
        #"{"source":"s","id":"1","page":1.0,"title":"t","images":[]}"#,
        #"{"source":"s","id":"1","page":1,"title":"t","images":[],"images":[]}"#,
        #"{"sou\u0072ce":"s","id":"1","page":1,"images":[]}"#,
        #"{"source":"s","id":"1","page":1,"images":null}"#,
        #"{"source":"s","id":"1","page":1,"status":3,"images":[]}"#,
        #"{"source":"s","id":"1","page":1,"images":[{"variant":"v","url":"u","status":"fresh","bytes":1e3}]}"#,
        "\u{FEFF}{\"source\":\"s\",\"id\":\"1\",\"page\":1,\"images\":[]}",
    ])
    func declinedButDecoded(text: String) throws {
        let bytes = Array(text.utf8)
        #expect(ItemJSON.scannerDecode(bytes) == nil)
        if let decoded = try? ItemJSON.foundationDecode(bytes) {
            #expect(try ItemJSON.decode(bytes) == decoded)
        } else {
            #expect(throws: ItemJSON.DecodeError.self) { try ItemJSON.decode(bytes) }
        }
    }

    /// Not items at all: declined, and `ItemJSON.decode` reports `JSONDecoder`'s reason.
    @Test(arguments: [
        ("", "not valid JSON"),
        ("[]", "unexpected value at top level"),
        (#"{"id":"1","page":1,"images":[]}"#, #"missing key "source" at top level"#),
        (#"{"source":"s","id":"1","page":"1","images":[]}"#, "unexpected value at page"),
        (#"{"source":"s","id":"1","page":1,"images":[{"variant":"v","url":"u","status":"odd"}]}"#, "images[0].status"),
        (#"{"source":"s","id":"1","page":1,"images":[{"variant":"v","url":"u"}]}"#, #"missing key "status" at images[0]"#),
        (#"{"source":"\ud800","id":"1","page":1,"images":[]}"#, ""),
    ])
    func notItems(text: String, reason: String) {
        let bytes = Array(text.utf8)
        #expect(ItemJSON.scannerDecode(bytes) == nil)
        let error = #expect(throws: ItemJSON.DecodeError.self) { try ItemJSON.decode(bytes) }
        #expect(reason.isEmpty || error?.description.contains(reason) == true, "\(error?.description ?? "")")
    }

    /// The scanner's date reader against Foundation's ISO-8601 parser, on dates as `JSONText`
    /// writes them across 1583...9999 and on near misses.
    @Test func datesMatchFoundationsParser() {
        var random = TestRandom(seed: 7)
        var texts: [String] = ["1583-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2000-02-29T00:00:00Z", "1900-02-28T23:59:59Z"]
        for _ in 0..<1500 {
            var json = JSONText()
            json.date(ItemFixtures.date(&random))
            texts.append(String(decoding: json.bytes.dropFirst().dropLast(), as: UTF8.self))
        }
        var parsed = 0
        for text in texts {
            #expect(ItemLineScanner.parseDate(text) != nil, "\(text)")
            #expect(ItemLineScanner.parseDate(text) == ManifestCoding.parseDate(text), "\(text)")
            // Near misses: one character changed. Whatever the scanner parses, Foundation parses alike.
            var bytes = Array(text.utf8)
            let at = random.int(0..<bytes.count)
            bytes[at] = random.pick(Array("0123456789-:TZtz .+".utf8))
            let miss = String(decoding: bytes, as: UTF8.self)
            if let date = ItemLineScanner.parseDate(miss) {
                parsed += 1
                #expect(date == ManifestCoding.parseDate(miss), "\(miss)")
            }
        }
        #expect(parsed > 0)
        for invalid in ["2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "1582-12-31T23:59:59Z",
                        "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z", "2024-05-01T12:00:60Z", "2024-00-01T00:00:00Z",
                        "2024-05-00T00:00:00Z", "2024-05-01T12:00:00", "2024-05-01T12:00:00.0Z", "2024-05-01"] {
            #expect(ItemLineScanner.parseDate(invalid) == nil, "\(invalid)")
        }
    }

    /// The reader's integer reading for records (digits read straight from the bytes) against
    /// `JSONDecoder`: whatever it reads as a whole document, `JSONDecoder` reads as the same
    /// `Int64`; the extremes, overflow by one, fractions, exponents and leading zeros included.
    @Test func integersMatchJSONDecoder() {
        var texts = ["0", "-0", "7", "-7", "123456789", "9223372036854775807", "-9223372036854775808",
                     "9223372036854775808", "-9223372036854775809", "99999999999999999999", "1.5", "1e3", "1E3",
                     "-1.0", "01", "-01", "00", "-", "--1", "+1", "1-", " 1", "1 ", ""]
        var random = TestRandom(seed: 5)
        for _ in 0..<2000 {
            let digits = random.int(1..<21)
            var text = random.int(0..<2) == 0 ? "-" : ""
            for _ in 0..<digits { text += String(random.int(0..<10)) }
            if random.int(0..<8) == 0 { text += random.pick([".5", "e2", "E-1", "x"]) }
            texts.append(text)
        }
        var accepted = 0
        for text in texts {
            let bytes = Array(text.utf8)
            let scanned = try? FeedJSONReader.document(bytes, input: .record) { try $0.int64() }
            let decoded = try? JSONDecoder().decode(Int64.self, from: Data(bytes))
            if let scanned {
                accepted += 1
                #expect(scanned == decoded, "\(text)")
            }
            // Plain in-range integers are read by the scanner too (else every page falls back).
            if let decoded, text == String(decoded), text != "-0" {
                #expect(scanned == decoded, "\(text)")
            }
        }
        #expect(accepted > 1000)
        for rejected in ["9223372036854775808", "-9223372036854775809", "1.5", "1e3", "01", "-"] {
            let value = try? FeedJSONReader.document(Array(rejected.utf8), input: .record) { try $0.int64() }
            #expect(value == nil, "\(rejected)")
        }
    }
}
