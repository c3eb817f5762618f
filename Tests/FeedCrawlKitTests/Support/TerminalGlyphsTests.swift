import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// The characters of the terminal output under each locale: Unicode for UTF-8, ASCII otherwise.
@Suite("Terminal glyphs and the locale")
struct TerminalGlyphsTests {
    @Test(arguments: [
        // LC_ALL wins, then LC_CTYPE, then LANG; empty counts as unset; none set is C.
        ([String: String](), false),
        (["LANG": "en_US.UTF-8"], true),
        (["LANG": "C.utf8"], true),
        (["LANG": "de_DE.Utf-8"], true),
        (["LANG": "C"], false),
        (["LANG": "en_US.ISO-8859-1"], false),
        (["LC_ALL": "C", "LANG": "en_US.UTF-8"], false),
        (["LC_ALL": "POSIX", "LC_CTYPE": "en_US.UTF-8"], false),
        (["LC_ALL": "", "LC_CTYPE": "C.UTF-8", "LANG": "C"], true),
        (["LC_CTYPE": "C", "LANG": "en_US.UTF-8"], false),
        (["LC_CTYPE": "", "LANG": "en_US.UTF-8"], true),
        (["LC_ALL": "en_GB.UTF-8", "LANG": "C"], true),
    ])
    func theLocaleDecidesTheCharacterSet(environment: [String: String], utf8: Bool) {
        #expect(TerminalGlyphs.localeIsUTF8(environment) == utf8)
        #expect(TerminalGlyphs.forLocale(environment) == (utf8 ? .unicode : .ascii))
    }

    @Test func asciiReplacesEveryGlyphOfTheProgramAndKeepsTheRest() {
        let ascii = TerminalGlyphs.ascii
        #expect(ascii.applied(to: "a · b │ c… d — e → f 3×4 ∞") == "a - b | c... d -- e -> f 3x4 inf")
        #expect(ascii.applied(to: "plain text") == "plain text")
        #expect(TerminalGlyphs.unicode.applied(to: "a · b │ c…") == "a · b │ c…")
        for (glyph, substitute) in TerminalGlyphs.substitutes {
            #expect(!glyph.isASCII && substitute.allSatisfy(\.isASCII), "\(glyph) -> \(substitute)")
            #expect(ascii.applied(to: String(glyph)) == substitute)
        }
    }

    /// The live display under a non-UTF-8 locale: the same fields, ASCII separators, every line
    /// within the width (the ASCII ellipsis is longer than `…`).
    @Test func theDisplayInASCIIIsTheSameFieldsWithinTheWidth() {
        var snapshot = ProgressSnapshot(sources: [
            .init(name: "pixabay", pagesPlanned: 5), .init(name: "a-very-long-source-name-indeed", pagesPlanned: 3),
        ])
        snapshot.sources[0].pagesFetched = 3
        snapshot.sources[0].listed = 300
        snapshot.sources[0].counts = [.downloaded: 280, .failed: 2]
        snapshot.bytes = 1536 * 1024
        snapshot.elapsed = 65.7
        let wide = ProgressText.lines(snapshot, bytesPerSecond: 512 * 1024, width: 200, glyphs: .ascii)
        #expect(wide.last == "items 280 done - 18 queued - 2 failed | 1.5 MiB | 512 KiB/s | 1:05")
        #expect(wide[1].hasPrefix("a-very-long-sourc... "), "\(wide[1])")
        for width in [12, 20, 30, 40, 50, 80, 200] {
            let lines = ProgressText.lines(snapshot, bytesPerSecond: 512 * 1024, width: width, glyphs: .ascii)
            let unicode = ProgressText.lines(snapshot, bytesPerSecond: 512 * 1024, width: width)
            #expect(lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, "width \(width): \(lines)")
            #expect(lines.allSatisfy { $0.count <= max(10, width - 1) }, "width \(width): \(lines)")
            #expect(lines.count == unicode.count, "width \(width): \(lines) \(unicode)")
        }
    }
}
