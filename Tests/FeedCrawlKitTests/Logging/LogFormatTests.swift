import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Log line formats")
struct LogFormatTests {
    /// 2024-05-01T12:00:00.250Z
    static let time = Date(timeIntervalSince1970: 1_714_564_800.25)

    static let record = LogRecord(
        time: time, level: .warning, source: "pixabay", event: "page",
        message: "page 3: bad \u{1B}[31mred\u{1B}[0m \"quoted\"\nnext",
        fields: [LogField("page", 3), LogField("ok", false), LogField("seconds", 0.1234), LogField("why", "a\tb")])

    @Test func textForAPersonHasNoControlCharacters() {
        let line = LogFormat.text.format(Self.record)
        #expect(line == "feedcrawl: pixabay: warning: page 3: bad red \"quoted\" next")
    }

    @Test func textForAFileStartsWithTimeAndLevel() {
        let line = LogFormat.text.format(Self.record, timestamps: true)
        #expect(line.hasPrefix("2024-05-01T12:00:00.250Z warning feedcrawl: pixabay: page 3"))
        let info = LogRecord(time: Self.time, level: .info, event: "notice", message: "hello")
        #expect(LogFormat.text.format(info) == "feedcrawl: hello")
    }

    @Test func jsonLineParsesAndEscapes() throws {
        let line = LogFormat.json.format(Self.record)
        #expect(!line.contains("\n"))
        #expect(!line.contains("\u{1B}"))
        let value = try JSONValue.parse(Data(line.utf8))
        #expect(value["timestamp"] == .string("2024-05-01T12:00:00.250Z"))
        #expect(value["level"] == .string("warning"))
        #expect(value["source"] == .string("pixabay"))
        #expect(value["event"] == .string("page"))
        #expect(value["message"] == .string("page 3: bad \u{1B}[31mred\u{1B}[0m \"quoted\"\nnext"))
        #expect(value["fields"]?["page"] == .number(3))
        #expect(value["fields"]?["ok"] == .bool(false))
        #expect(value["fields"]?["seconds"] == .number(0.123))
        #expect(value["fields"]?["why"] == .string("a\tb"))
        #expect(value.keys == ["event", "fields", "level", "message", "source", "timestamp"])
    }

    @Test func jsonRunLevelRecordHasNullSource() throws {
        let record = LogRecord(time: Self.time, level: .info, event: "summary", message: "done",
                               fields: [LogField("nan", .double(.nan)), LogField("big", Int64(1) << 40)])
        let value = try JSONValue.parse(Data(LogFormat.json.format(record).utf8))
        #expect(value["source"] == .null)
        #expect(value["fields"]?["nan"] == .null)
        #expect(value["fields"]?["big"] == .number(Double(Int64(1) << 40)))
    }

    @Test func jsonTextEscapesEveryControlCharacter() throws {
        var all = ""
        for v in UInt32(0)...0xA0 { all.unicodeScalars.append(Unicode.Scalar(v)!) }
        all += "\u{2028}é😀"
        let quoted = JSONText.quoted(all)
        #expect(quoted.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) })
        let back = try JSONDecoder().decode(String.self, from: Data(quoted.utf8))
        #expect(back == all)
    }

    @Test func levelsAreOrdered() {
        #expect(LogLevel.debug < .info && LogLevel.info < .warning && LogLevel.warning < .error)
    }
}
