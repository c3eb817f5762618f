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

    /// The pages of a state read back, in order; nil when it is not one.
    private static func read(_ bytes: [UInt8]) -> [ContactSheet.State.Entry]? {
        var entries: [ContactSheet.State.Entry] = []
        guard ContactSheet.State.read(bytes, { entries.append(.init(name: $0, page: $1)) }) else { return nil }
        return entries
    }

    @Test func theStateIsWrittenAsTheEncoderWroteIt() throws {
        let entries: [ContactSheet.State.Entry] = [
            .init(name: "index-a\"b/c-p1.html", page: .init(fingerprint: CompactHex("not hex"), parts: 2)),
            .init(name: "index-pixabay-p10.html", page: .init(fingerprint: CompactHex("0123"), parts: 1)),
            .init(name: "index-pixabay-p2.html", page: .init(fingerprint: CompactHex(String(repeating: "ab", count: 32)), parts: 3)),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let mirror = Encoded(pages: Dictionary(uniqueKeysWithValues: entries.map {
            ($0.name, Encoded.Page(fingerprint: $0.page.fingerprint.text, parts: $0.page.parts))
        }))
        let expected = Array(try encoder.encode(mirror)) + [0x0A]
        let written = ContactSheet.State.encode(entries)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(Self.read(written) == entries)
        #expect(Self.read(expected) == entries)
        #expect(ContactSheet.State.encode([]) == Array("{\"format\":1,\"pages\":{}}\n".utf8))
        #expect(Self.read(ContactSheet.State.encode([])) == [])
    }

    /// What is not a state as `encode` writes it reads as none (every page is then rendered
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
        #expect(Self.read(Array(text.utf8)) == nil)
    }

    /// A sheet page's name is found as its feed page's, with its part; a name that only looks
    /// like one (a part 1 or 01 spelled out, a feed page the archive has not) is none.
    @Test func pageNamesFindTheirFeedPageAndPart() {
        let pages = [("pixabay", 2), ("pixabay", 10), ("flowers-1", 3), ("a b", 4)].map {
            ContactSheet.FeedPage(source: $0.0, page: $0.1, entries: [])
        }
        let byName = ContactSheet.PageNames(pages)
        #expect(byName.part(named: "index-pixabay-p2.html")! == (0, 1))
        #expect(byName.part(named: "index-pixabay-p10-3.html")! == (1, 3))
        #expect(byName.part(named: "index-flowers-1-p3.html")! == (2, 1))
        #expect(byName.part(named: "index-flowers-1-p3-12.html")! == (2, 12))
        #expect(byName.part(named: ContactSheet.pageName(source: "a b", page: 4, part: 2))! == (3, 2))
        for name in ["index-pixabay-p2-1.html", "index-pixabay-p2-02.html", "index-pixabay-p3.html", "index-pixabay-p2-x.html",
                     "index.html", "index-pixabay-p2.htm", "index-pixabay-p2-+2.html"] {
            #expect(byName.part(named: name) == nil, "\(name)")
        }
    }
}
