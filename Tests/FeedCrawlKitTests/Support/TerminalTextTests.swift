import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("TerminalText")
struct TerminalTextTests {
    @Test(arguments: [
        ("plain title, with spaces", "plain title, with spaces"),
        ("Ünïcödé 花 🚀", "Ünïcödé 花 🚀"),
        ("tab\there\nnew\r\nline", "tab here new  line"),
        ("red \u{1B}[31;1mALERT\u{1B}[0m done", "red ALERT done"),
        ("title\u{1B}]0;pwned\u{07}after", "titleafter"),
        ("link \u{1B}]8;;http://x\u{1B}\\text\u{1B}]8;;\u{1B}\\", "link text"),
        ("dcs \u{1B}Pq#0;2;0;0;0\u{1B}\\end", "dcs end"),
        ("c1 \u{9B}2Jcsi and \u{9D}osc\u{9C}gone", "c1 csi and gone"),
        ("bell\u{07} nul\u{00} del\u{7F} nel\u{85}", "bell nul del nel"),
        ("esc(B charset \u{1B}(Bok", "esc(B charset ok"),
        ("keypad \u{1B}=x", "keypad x"),
        ("bidi \u{202E}gnp.exe\u{202C} \u{2067}x\u{2069}", "bidi gnp.exe x"),
        ("broken csi \u{1B}[12;花 keeps", "broken csi 花 keeps"),
        ("dangling \u{1B}", "dangling "),
        ("unterminated \u{1B}]0;title", "unterminated "),
    ])
    func sanitizes(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected)
    }

    @Test func outputNeverContainsControls() {
        var text = ""
        for value in 0..<0x300 where value != 0x1B {
            if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
        }
        let clean = TerminalText.sanitize("\u{1B}" + text + "\u{1B}[")
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(clean.contains("AZ") == false)  // "A" and "Z" are not adjacent in the input
        #expect(clean.contains("XYZ"))
    }
}
