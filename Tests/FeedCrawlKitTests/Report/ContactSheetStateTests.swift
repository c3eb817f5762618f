import FoundationEssentials
import Testing

@testable import FeedCrawlKit

/// The sheet's state (`OUT/.sheet.json`), written directly, is the text `JSONEncoder` wrote
/// (sorted keys, slashes as they are) and reads back as it was.
@Suite struct ContactSheetStateTests {
    @Test func theStateIsWrittenAsTheEncoderWroteIt() throws {
        var state = ContactSheet.State()
        state.pages["index-pixabay-p2.html"] = .init(fingerprint: CompactHex(String(repeating: "ab", count: 32)), parts: 3)
        state.pages["index-pixabay-p10.html"] = .init(fingerprint: CompactHex("0123"), parts: 1)
        state.pages["index-a\"b/c-p1.html"] = .init(fingerprint: CompactHex("not hex"), parts: 2)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = Array(try encoder.encode(state)) + [0x0A]
        let written = try state.encoded()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(ContactSheet.State.decode(written) == state)
        #expect(try ContactSheet.State().encoded() == Array("{\"format\":1,\"pages\":{}}\n".utf8))
    }
}
