import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("ByteSize")
struct ByteSizeTests {
    static let parseCases: [(String, Int64)] = [
        ("0", 0), ("1024", 1024), ("17B", 17), ("2G", 2 << 30), ("2g", 2 << 30), ("2GB", 2 << 30),
        ("2GiB", 2 << 30), ("2 gib", 2 << 30), ("  500M ", 500 << 20), ("1K", 1024), ("3T", 3 << 40),
        ("1.5G", 3 << 29), ("0.5k", 512), (".5K", 512), ("1.1K", 1126), ("7E", 7 << 60), ("1P", 1 << 50),
        ("9223372036854775807", Int64.max), ("1.999999999999K", 2047),
    ]

    @Test(arguments: parseCases)
    func parses(text: String, bytes: Int64) throws {
        #expect(try ByteSize.parse(text) == bytes)
    }

    @Test(arguments: ["", "   ", "abc", "G", "2X", "2 G B", "1.2.3G", "0x10", "2GG", "2KiBB", "+5M", "1,5G", "٣K", "2Gi"])
    func rejectsGarbage(text: String) {
        #expect(throws: ByteSize.ParseError.self) { try ByteSize.parse(text) }
    }

    @Test func errorKinds() {
        #expect(throws: ByteSize.ParseError.negative("-1G")) { try ByteSize.parse("-1G") }
        #expect(throws: ByteSize.ParseError.overflow("8E")) { try ByteSize.parse("8E") }
        #expect(throws: ByteSize.ParseError.overflow("9223372036854775808")) { try ByteSize.parse("9223372036854775808") }
        #expect(throws: ByteSize.ParseError.overflow("99999999999999999999T")) { try ByteSize.parse("99999999999999999999T") }
        #expect(throws: ByteSize.ParseError.empty) { try ByteSize.parse(" ") }
        #expect(ByteSize.ParseError.invalid("2X").description == "invalid size \"2X\" (expected e.g. 500M, 2G, 1.5GiB)")
        #expect(ByteSize.ParseError.negative("-1G").description == "size \"-1G\" must not be negative")
    }

    static let formatCases: [(Int64, String)] = [
        (0, "0 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"), (20 << 20, "20 MiB"),
        (3 << 29, "1.5 GiB"), (1_048_575, "1 MiB"), (5 << 40, "5 TiB"), (-1536, "-1.5 KiB"),
        (Int64.max, "8 EiB"), (1_153_434, "1.1 MiB"),
    ]

    @Test(arguments: formatCases)
    func formats(bytes: Int64, text: String) {
        #expect(ByteSize.format(bytes) == text)
    }

    @Test func formatThenParseRoundTripsExactValues() throws {
        for bytes: Int64 in [1, 512, 1024, 3 << 19, 7 << 30, 1 << 62] {
            let text = ByteSize.format(bytes).replacing(" ", with: "")
            #expect(try ByteSize.parse(text) == bytes, "\(text)")
        }
    }
}
