import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// `JSONText` writes the manifest's and the journal's text; its strings, numbers and dates must
/// be byte-identical to what `JSONEncoder` writes with the manifest's settings (slashes not
/// escaped, ISO-8601 dates in whole seconds for items).
@Suite("JSONText against JSONEncoder")
struct JSONTextTests {
    static let nasty = ItemFixtures.nasty

    /// The oracle: compact, slashes unescaped, `.iso8601` dates (whole seconds, as items keep
    /// them; a run record's dates carry milliseconds and are not written by `JSONText`).
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Strings are escaped eight bytes at a time where nothing needs escaping: every mix and
    /// position of quotes, backslashes, control characters and multi-byte text must still match.
    @Test func stringsMatchTheEncoderAtEveryPosition() throws {
        let pieces = ["a", "bcdefgh", "\"", "\\", "/", "\n", "\u{0}", "\u{1f}", " ", "\u{7f}", "é", "😀", "\u{2028}",
                      "0123456789abcdef", "\u{8}\u{c}\r\t", "~"]
        var random = TestRandom(seed: 0x2545_F491_4F6C_DD1D)
        let encoder = Self.encoder()
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<random.int(0..<12) { text += random.pick(pieces) }
            var json = JSONText()
            json.string(text)
            #expect(json.bytes == Array(try encoder.encode(text)), "\(text.debugDescription)")
        }
        var json = JSONText()
        json.string(Self.nasty)
        #expect(json.bytes == Array(try encoder.encode(Self.nasty)))
        // A kept page body: long, with a quote every few bytes (escapes found a word at a time).
        var body = "{\"hits\":["
        for n in 0..<400 {
            body += "{\"id\":\(n),\"tags\":\"a, b\\\\c\",\"u\":\"https://x/\(n).jpg\"\(n % 7 == 0 ? "\n" : "")},"
        }
        body += "\u{1}]}"
        var page = JSONText()
        page.string(body)
        #expect(page.bytes == Array(try encoder.encode(body)))
    }

    @Test func integersMatchTheEncoder() throws {
        let encoder = Self.encoder()
        for value: Int64 in [0, 1, -1, 9, 10, -10, 1 << 53, Int64.max, Int64.min, 12_345, -99_999] {
            var json = JSONText()
            json.int(value)
            #expect(json.bytes == Array(try encoder.encode(value)), "\(value)")
        }
    }

    @Test func datesMatchFoundationAcrossTheRange() throws {
        var random = TestRandom(seed: 42)
        var seconds: [Double] = [0, -1, 1, 86_399.999, -86_400.5, 951_782_400, 4_107_542_400, -12_212_553_600,
                                 -12_212_553_601, 253_402_300_799, 253_402_300_800, -62_135_596_800]
        for _ in 0..<300 {
            seconds.append(Double(random.int(-30_000_000_000..<270_000_000_000)) + Double(random.int(0..<1000)) / 1000)
        }
        let encoder = Self.encoder()
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            var json = JSONText()
            json.date(date)
            let expected = Array(try encoder.encode([date]).dropFirst().dropLast())
            #expect(json.bytes == expected, "\(value)")
        }
    }

    @Test func removeAllKeepsWriting() {
        var json = JSONText()
        json.beginObject(); json.key("a"); json.null(); json.endObject()
        json.removeAll()
        json.beginArray(); json.element(); json.string("x"); json.endArray()
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"["x"]"#)
    }
}
