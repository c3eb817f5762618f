import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("DurationParser")
struct DurationParserTests {
    @Test(arguments: [
        ("90s", 90.0), ("10m", 600), ("24h", 86_400), ("7d", 604_800), ("1h30m", 5_400), ("1h 30m", 5_400),
        ("2w", 1_209_600), ("500ms", 0.5), ("1.5h", 5_400), ("45", 45), ("0s", 0), ("1d2h3m4s", 93_784),
        (" 5m ", 300), ("0.25s", 0.25),
    ])
    func parses(text: String, seconds: Double) throws {
        #expect(try DurationParser.parse(text) == seconds)
    }

    @Test func errors() {
        #expect(throws: DurationParser.ParseError.empty) { try DurationParser.parse("") }
        #expect(throws: DurationParser.ParseError.negative("-5m")) { try DurationParser.parse("-5m") }
        #expect(throws: DurationParser.ParseError.unknownUnit("5y", unit: "y")) { try DurationParser.parse("5y") }
        #expect(throws: DurationParser.ParseError.unknownUnit("5M", unit: "M")) { try DurationParser.parse("5M") }
        #expect(throws: DurationParser.ParseError.invalid("1h30")) { try DurationParser.parse("1h30") }
        #expect(throws: DurationParser.ParseError.invalid("h")) { try DurationParser.parse("h") }
        #expect(throws: DurationParser.ParseError.invalid("1..5s")) { try DurationParser.parse("1..5s") }
        #expect(throws: DurationParser.ParseError.invalid("5m!")) { try DurationParser.parse("5m!") }
        #expect(throws: DurationParser.ParseError.tooLarge("99999w")) { try DurationParser.parse("99999w") }
        #expect(throws: DurationParser.ParseError.tooLarge("9999999999999999999s")) {
            try DurationParser.parse("9999999999999999999s")
        }
        #expect(DurationParser.ParseError.unknownUnit("5y", unit: "y").description
            == "unknown unit \"y\" in duration \"5y\" (units: ms, s, m, h, d, w)")
    }

    @Test(arguments: [
        (0.0, "0s"), (0.25, "250ms"), (1.5, "1.5s"), (45, "45s"), (90, "1m30s"), (5_400, "1h30m"),
        (604_800, "7d"), (93_784, "1d2h3m4s"), (-90, "-1m30s"), (59.99, "1m"),
    ])
    func formats(seconds: Double, text: String) {
        #expect(DurationParser.format(seconds) == text)
    }

    @Test func formatParsesBack() throws {
        for seconds in [0.5, 3.0, 61, 3_600, 90_061, 1_209_600] {
            #expect(try DurationParser.parse(DurationParser.format(seconds)) == seconds)
        }
    }
}
