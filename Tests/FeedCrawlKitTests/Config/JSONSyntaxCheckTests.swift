import Testing
@testable import FeedCrawlKit

@Suite("JSON syntax check and key suggestions")
struct JSONSyntaxCheckTests {
    static func problem(_ text: String) -> JSONSyntaxCheck.Problem? {
        JSONSyntaxCheck.firstProblem(in: Array(text.utf8))
    }

    @Test func wellFormedJSONHasNoProblem() {
        for text in ["{}", "[]", " {\"a\": [1, -2.5e+3, true, false, null, \"x\\n\\u00e9\"], \"b\": {}} ", "3", "\"s\"",
                     "\u{FEFF}{}"] {
            #expect(Self.problem(text) == nil, "\(text)")
        }
    }

    @Test func namesLineColumnAndWhatWasExpected() {
        let cases: [(String, Int, Int, String)] = [
            ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}', found '\"'"),
            ("{\"a\": 1", 1, 8, "expected ',' or '}', found the end of the file"),
            ("{\"a\" 1}", 1, 6, "expected ':' after the key, found '1'"),
            ("{a: 1}", 1, 2, "expected a key in double quotes, found 'a'"),
            ("[1, 2,]", 1, 7, "expected a value"),
            ("{\"é\": x}", 1, 7, "expected a value"),           // columns count characters
            ("{\"a\": \"line\nbreak\"}", 1, 12, "expected '\"' to close the string"),
            ("{\"a\": 01}", 1, 8, "expected ',' or '}', found '1'"),
            ("{\"a\": nul}", 1, 7, "expected true, false or null"),
            ("{\"a\": \"\\x\"}", 1, 9, "expected an escape"),
            ("{} {}", 1, 4, "expected nothing more after the top-level value"),
            ("", 1, 1, "expected a value"),
        ]
        for (text, line, column, problem) in cases {
            let found = Self.problem(text)
            #expect(found?.line == line && found?.column == column, "\(text): \(String(describing: found))")
            #expect(found?.problem.hasPrefix(problem) == true, "\(text): \(String(describing: found))")
        }
        #expect(Self.problem(String(repeating: "[", count: 600))?.problem.hasPrefix("expected at most 512 levels") == true)
    }

    @Test func configFileErrorsCarryThePlace() {
        do {
            _ = try ConfigFile.parse(Array("{\n\"pages\": 1,\n\"out\" \"o\"}".utf8), path: "/etc/f.json")
            Issue.record("parsed")
        } catch {
            #expect(error.description == "config file /etc/f.json: not valid JSON at line 3, column 7: expected ':' after the key, found '\"'")
        }
    }

    @Test func suggestsTheClosestKey() {
        let keys = ["pages", "perPage", "perHost", "out", "cacheMax"]
        #expect(KeySuggestion.closest(to: "pagse", among: keys) == "pages")
        #expect(KeySuggestion.closest(to: "per-page", among: keys) == "perPage")
        #expect(KeySuggestion.closest(to: "PERHOST", among: keys) == "perHost")
        #expect(KeySuggestion.closest(to: "colour", among: keys) == nil)
        #expect(KeySuggestion.closest(to: "ot", among: keys) == "out")
        #expect(KeySuggestion.unknownKey("pagse", valid: ["out", "pages"])
            == "unknown key; did you mean \"pages\"? valid keys: out, pages")
        #expect(KeySuggestion.unknownKey("zz", valid: ["out"]) == "unknown key; valid keys: out")
    }

    @Test func listsAreArraysOfStringsOrOneCommaSeparatedString() {
        #expect(ConfigValue.array([.string("a"), .string("b")]).listItems == ["a", "b"])
        #expect(ConfigValue.string("a,b").listItems == ["a", "b"])
        #expect(ConfigValue.array([.number(1)]).listItems == nil)
        #expect(ConfigValue.number(1).listItems == nil)
    }
}
