import FoundationEssentials
import Testing

@testable import FeedCrawlKit

/// The sheet's state (`OUT/.sheet.json`), written directly, is the text `JSONEncoder` wrote
/// (sorted keys, slashes as they are) and reads back as it was.
@Suite struct ContactSheetStateTests {
    /// What `JSONEncoder` made of the state's shape.
    private struct Encoded: Encodable {
        struct Page: Encodable {
            var fingerprint: String
            var parts: Int
        }
        var format = 1
        var pages: [String: Page]
    }

    @Test func theStateIsWrittenAsTheEncoderWroteIt() throws {
        let state = ContactSheet.State([
            .init(name: "index-pixabay-p2.html", page: .init(fingerprint: CompactHex(String(repeating: "ab", count: 32)), parts: 3)),
            .init(name: "index-pixabay-p10.html", page: .init(fingerprint: CompactHex("0123"), parts: 1)),
            .init(name: "index-a\"b/c-p1.html", page: .init(fingerprint: CompactHex("not hex"), parts: 2)),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let mirror = Encoded(pages: Dictionary(uniqueKeysWithValues: state.entries.map {
            ($0.name, Encoded.Page(fingerprint: $0.page.fingerprint.text, parts: $0.page.parts))
        }))
        let expected = Array(try encoder.encode(mirror)) + [0x0A]
        let written = try state.encoded()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(ContactSheet.State.decode(written) == state)
        #expect(ContactSheet.State.decode(expected) == state)
        #expect(state["index-pixabay-p10.html"]?.parts == 1)
        #expect(state["index-a\"b/c-p1.html"]?.fingerprint == CompactHex("not hex"))
        #expect(state["index-pixabay-p3.html"] == nil)
        #expect(try ContactSheet.State().encoded() == Array("{\"format\":1,\"pages\":{}}\n".utf8))
    }

    /// Of one name, the last entry given wins; the order given does not matter.
    @Test func aStateIsKeptInNameOrder() {
        let page = { (parts: Int) in ContactSheet.State.Page(fingerprint: CompactHex("00"), parts: parts) }
        let state = ContactSheet.State([.init(name: "b", page: page(1)), .init(name: "a", page: page(2)), .init(name: "b", page: page(3))])
        #expect(state.entries.map(\.name) == ["a", "b"])
        #expect(state["b"]?.parts == 3)
    }

    /// What is not a state as `encoded` writes it reads as none (every page is then rendered
    /// again), never as a wrong one.
    @Test(arguments: [
        "", "{}", "{\"format\":2,\"pages\":{}}\n", "{\"format\":1,\"pages\":{}}x",
        "{\"format\":1,\"pages\":{\"a\":{\"fingerprint\":\"00\",\"parts\":}}}",
        "{\"format\":1,\"pages\":{\"a\":{\"fingerprint\":\"00\",\"parts\":1}}",
        "{\"format\":1,\"pages\":{\"a\":{\"fingerprint\":\"00\",\"parts\":1},}}",
        "{\"format\":1,\"pages\":{\"a\":{\"parts\":1,\"fingerprint\":\"00\"}}}",
        "{\"format\":1,\"pages\":{\"a\\\":{\"fingerprint\":\"00\",\"parts\":1}}}",
        "{ \"format\":1,\"pages\":{}}",
    ])
    func whatIsNotAStateReadsAsNone(text: String) {
        #expect(ContactSheet.State.decode(Array(text.utf8)) == nil)
    }
}
