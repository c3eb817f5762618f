import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// The one reader every feed decoder walks: what it reads, what it refuses (with the line and
/// column), and that no count or depth of input can make it recurse or build a tree.
@Suite("Feed JSON reader")
struct FeedJSONReaderTests {
    /// Every value of `body` read as `FeedLooseValue` (the elements of a top-level array, or
    /// the one value), or the syntax error's text.
    static func values(_ body: String) -> Result<[FeedLooseValue], JSONSyntaxCheck.Problem> {
        do {
            return .success(try FeedJSONReader.document(Array(body.utf8)) { reader -> [FeedLooseValue] in
                guard try reader.kind() == .array else { return [try reader.value()] }
                var values: [FeedLooseValue] = []
                try reader.array { reader, _ in values.append(try reader.value()) }
                return values
            })
        } catch let problem as JSONSyntaxCheck.Problem {
            return .failure(problem)
        } catch {
            Issue.record("unexpected \(error)")
            return .success([])
        }
    }

    @Test func readsScalarsAsTheLooseValuesTheDecodersUse() throws {
        let read = try Self.values(#"[1, -0, "x", 2.5, -1e3, true, false, null, {"a":[1,{}]}, [[]], 9223372036854775807, -9223372036854775808, 9223372036854775808, 1e400, "\u0041\u00e9\ud83d\ude00\n\/"]"#).get()
        #expect(read == [
            .int(1), .int(0), .string("x"), .double(2.5), .double(-1000), .bool(true), .bool(false), .null, .object, .array,
            .int(.max), .int(.min), .double(9223372036854775808), .double(.infinity), .string("Aé😀\n/"),
        ])
    }

    /// Strings are scanned eight bytes at a time up to the first quote, backslash, control or
    /// non-ASCII byte: such a byte at every position of a word, and at the end of the body, must
    /// read (or be refused) as `JSONDecoder` reads it.
    @Test func stringsReadAsTheDecoderReadsThemWhereverTheirSpecialBytesFall() throws {
        let specials = ["\\\"", "\\\\", "\\n", "\\u00e9", "é", "😀", "\n", "\u{1}", "\"", "/"]
        for special in specials {
            for before in 0..<18 {
                for after in [0, 1, 7, 8, 9] {
                    let body = "[\"" + String(repeating: "a", count: before) + special + String(repeating: "b", count: after) + "\"]"
                    let expected = try? JSONDecoder().decode([String].self, from: Data(body.utf8))
                    switch Self.values(body) {
                    case .success(let read):
                        #expect(expected.map { $0.map { FeedLooseValue.string($0) } } == read, "\(body.debugDescription)")
                    case .failure:
                        #expect(expected == nil, "\(body.debugDescription) refused, JSONDecoder reads it")
                    }
                }
            }
        }
    }

    @Test func nonASCIIAndBOMAreRead() throws {
        #expect(try Self.values("\u{FEFF}[\"é😀\", \"a\"]").get() == [.string("é😀"), .string("a")])
        // A lone surrogate escape is U+FFFD, not an error.
        #expect(try Self.values(#"["\ud83dx", "\ude00"]"#).get() == [.string("\u{FFFD}x"), .string("\u{FFFD}")])
    }

    /// Broken JSON is refused at its first wrong byte, line and column counted from 1 (columns
    /// in characters).
    @Test(arguments: [
        (#"{"hits":[{"id":1}]} x"#, "line 1, column 21: expected nothing more after the top-level value, found 'x'"),
        (#"{"hits":[{"id":01}]}"#, "line 1, column 17: expected ',' or '}', found '1'"),
        (#"{"hits":[{"id":1,}]}"#, "line 1, column 18: expected a key in double quotes, found '}'"),
        ("[1,\n 2,\n ]", "line 3, column 2: expected a value (an object, array, string in double quotes, number, true, false or null), found ']'"),
        (#"{"a":"é\q"}"#, #"line 1, column 9: expected an escape such as \" \\ \n or \u0041 after '\', found 'q'"#),
        ("{\"a\":\"a\tb\"}", "line 1, column 8: expected '\"' to close the string (a line break or control character in a string must be escaped), found a tab"),
        (#"{"a" 1}"#, "line 1, column 6: expected ':' after the key, found '1'"),
        (#"[tru]"#, "line 1, column 2: expected true, false or null, found 't'"),
        (#"[1.]"#, "line 1, column 4: expected a digit, found ']'"),
        (#"["\u12"]"#, #"line 1, column 7: expected four hex digits after \u, found '"'"#),
        (#"{"hits":[{"id":1}"#, "line 1, column 18: expected ',' or ']', found the end of the body"),
        (#"{"hits":[{"id":1"#, "line 1, column 17: expected ',' or '}', found the end of the body"),
    ] as [(String, String)])
    func brokenJSONIsRefusedWithLineAndColumn(body: String, expected: String) {
        guard case .failure(let problem) = Self.values(body) else {
            Issue.record("accepted \(body)")
            return
        }
        #expect(problem.description == expected)
    }

    @Test func invalidUTF8IsRefused() {
        for bytes: [UInt8] in [[0x5B, 0x22, 0xC3, 0x22, 0x5D], [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D]] {
            #expect(throws: JSONSyntaxCheck.Problem.self) {
                try FeedJSONReader.document(bytes) { reader in try reader.skip() }
            }
        }
    }

    /// 512 levels are read, 513 refused; skipping a deep value does not recurse.
    /// A list may hold one element per 64 bytes of the page limit: 8 MiB of `[{},{},…]` would
    /// otherwise be 2.8 million rejected items (about 800 MiB). The error names the option.
    @Test func aListOfTinyElementsIsBoundedByThePageLimit() throws {
        let limit = FeedJSON.maxElements(pageBytes: 8 << 20)
        #expect(limit == 131_072)
        let tiny = Array(("[" + Array(repeating: "{}", count: limit + 1).joined(separator: ",") + "]").utf8)
        let error = #expect(throws: FeedDecodeError.self) { try ArrayPage.decode(tiny, page: 1) }
        #expect(error?.reason == "array page: a list of more than 131072 elements (one per 64 bytes of the page limit; raise it with --max-page-bytes)")
        // A higher limit reads it (every element a rejected item), and one at the limit is read.
        #expect(try ArrayPage.decode(tiny, page: 1, maxElements: FeedJSON.maxElements(pageBytes: 16 << 20)).count == limit + 1)
        let atLimit = Array(("[" + Array(repeating: "{}", count: limit).joined(separator: ",") + "]").utf8)
        #expect(try ArrayPage.decode(atLimit, page: 1).count == limit)
        let hits = Array(("{\"total\":1,\"totalHits\":1,\"hits\":[" + Array(repeating: "{}", count: 11).joined(separator: ",") + "]}").utf8)
        #expect(throws: FeedDecodeError.self) { try PixabayPage.decode(hits, page: 1, maxElements: 10) }
        let launches = Array(("{\"data\":{\"launches\":{\"cursor\":\"c\",\"hasMore\":false,\"launches\":[" + Array(repeating: "null", count: 11).joined(separator: ",") + "]}}}").utf8)
        #expect(throws: FeedDecodeError.self) { try LaunchesPage.decode(launches, page: 1, maxElements: 10) }
    }

    @Test func nestingIsBoundedAndSkippingIsIterative() throws {
        let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(try Self.values(deep).get() == [.array])
        let deeper = String(repeating: "[{\"a\":", count: 300) + "1" + String(repeating: "}]", count: 300)
        guard case .failure(let problem) = Self.values(deeper) else {
            Issue.record("601 levels accepted")
            return
        }
        #expect(problem.problem.hasPrefix("expected at most 512 levels of nesting"))
    }

    /// A member or element a reader leaves unread is skipped (and checked); the first of two
    /// equal keys is the one the decoders keep.
    @Test func unreadValuesAreSkippedAndCheckedAndTheFirstKeyCounts() throws {
        let page = try PixabayPage.decode(Array(#"{"hits":[{"id":1,"id":2,"x":{"y":[1,"\u00e9"]},"tags":"t"}],"hits":[]}"#.utf8), page: 1)
        #expect(page.items.map(\.id) == ["1"])
        #expect(page.items.first?.title == "t")
        #expect(throws: FeedDecodeError.self) {
            try PixabayPage.decode(Array(#"{"hits":[{"id":1,"x":{"y":[1,}]}}]}"#.utf8), page: 1)
        }
    }

    /// A value a decoder only looks at (`kind()`) and leaves is skipped, with or without
    /// whitespace around it (Python's json.dumps writes `": "` and `", "`).
    @Test func valuesLookedAtAndLeftAreSkippedWhateverTheWhitespace() throws {
        for (colon, comma) in [(":", ","), (": ", ", "), (" :\n\t", " ,\r\n ")] {
            let body = #"{"errors"\#(colon)[{"message"\#(colon)"m"\#(comma)"extensions"\#(colon)"x"\#(comma)"path"\#(colon)5}\#(comma){"extensions"\#(colon){"code"\#(colon)"C"}\#(comma)"path"\#(colon)["launches"\#(comma)"launches"\#(comma)1\#(comma)"mission"\#(comma)"missionPatch"]}]\#(comma)"data"\#(colon){"launches"\#(colon){"cursor"\#(colon)null\#(comma)"launches"\#(colon)[{"id"\#(colon)"1"\#(comma)"mission"\#(colon)null}\#(comma){"id"\#(colon)"2"\#(comma)"mission"\#(colon)[]\#(comma)"site"\#(colon)"S"}]}}}"#
            let page = try LaunchesPage.decode(Array(body.utf8), page: 1)
            #expect(page.items.map(\.id) == ["1", "2"], "\(colon.debugDescription)")
            #expect(page.items.last?.author == "S")
            #expect(page.errors == [GraphQLError(message: "m"), GraphQLError(message: "(no message)", code: "C", path: ["launches", "launches", "1", "mission", "missionPatch"])])
            #expect(page.items.last?.images.first?.failure?.contains("[C]") == true)
            let details = #"{"data"\#(colon){"launch"\#(colon){"id"\#(colon)7\#(comma)"rocket"\#(colon)"none"\#(comma)"site"\#(colon)"X"}}}"#
            #expect(try LaunchDetailResponse.decode(Array(details.utf8)) == LaunchDetail(id: "7", site: "X"))
        }
    }

    /// No count limit: 20,001 elements are read, each page type, and what they cost is their
    /// bytes and the items kept.
    @Test func noElementCountLimit() throws {
        let count = 20_001
        let hits = (0..<count).map { #"{"id":\#($0),"previewURL":"https://cdn.example/\#($0).jpg"}"# }.joined(separator: ",")
        let pixabay = try PixabayPage.decode(Array("{\"hits\":[\(hits)]}".utf8), page: 1)
        #expect(pixabay.items.count == count && pixabay.items.last?.id == "20000")
        let launches = (0..<count).map { #"{"id":"\#($0)","site":"S","mission":{"name":"M","missionPatch":"https://p/\#($0).png"}}"# }
        let body = #"{"data":{"launches":{"cursor":"c","hasMore":false,"launches":["# + launches.joined(separator: ",") + "]}}}"
        let page = try LaunchesPage.decode(Array(body.utf8), page: 1)
        #expect(page.items.count == count && page.items.last?.images.first?.url == "https://p/20000.png")
        let array = try ArrayPage.decode(Array("[\(hits)]".utf8), page: 1, imageField: "previewURL")
        #expect(array.count == count && array.first?.images.first?.url == "https://cdn.example/0.jpg")
        let errors = Array(repeating: #"{"message":"m","path":["launches","launches",0]}"#, count: count).joined(separator: ",")
        let withErrors = #"{"errors":["# + errors + #"],"data":{"launches":{"launches":[{"id":"1"}]}}}"#
        #expect(try LaunchesPage.decode(Array(withErrors.utf8), page: 1).errors.count == count)
    }

    /// Syntax errors come first: a body that is broken is called invalid JSON even when its
    /// shape was already wrong before the break.
    @Test func syntaxErrorsWinOverShapeErrors() {
        let cases: [(String, () throws -> Void)] = [
            ("Pixabay page", { _ = try PixabayPage.decode(Array(#"[{"id":1},"#.utf8), page: 1) }),
            ("Pixabay page", { _ = try PixabayPage.decode(Array(#"{"hits":"x","#.utf8), page: 1) }),
            ("array page", { _ = try ArrayPage.decode(Array(#"{"message":"m""#.utf8), page: 1) }),
            ("launches page", { _ = try LaunchesPage.decode(Array(#"{"data":null} ]"#.utf8), page: 1) }),
            ("launch details", { _ = try LaunchDetailResponse.decode(Array(#"[1"#.utf8)) }),
        ]
        for (what, decode) in cases {
            let error = #expect(throws: FeedDecodeError.self) { try decode() }
            #expect(error?.reason.hasPrefix("\(what): invalid JSON at line 1, column ") == true, "\(error?.reason ?? "")")
        }
    }

    /// Every prefix of a real page is either refused as invalid JSON or read as a whole page.
    @Test func truncatedBodiesAreInvalidJSON() {
        let bytes = Array(PixabayFixtures.compactPage.utf8)
        for cut in stride(from: 1, to: bytes.count - 1, by: 13) {
            do {
                _ = try PixabayPage.decode(Array(bytes[..<cut]), page: 1)
                // Only whitespace was cut.
                #expect(bytes[cut...].allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }, "cut at \(cut)")
            } catch let error as FeedDecodeError {
                #expect(error.reason.hasPrefix("Pixabay page: invalid JSON at line ") || error.reason == "Pixabay page: empty body", "cut at \(cut): \(error)")
            } catch {
                Issue.record("cut at \(cut): \(error)")
            }
        }
    }

    @Test func dottedFieldsReadNestedObjectsAndTheWholeNameWins() throws {
        let body = #"[{"id":1,"a":{"b":{"c":"deep"},"x":"ax"},"a.x":"literal"},{"id":2,"a":{"b":"notobject","x":null}}]"#
        let items = try ArrayPage.decode(Array(body.utf8), page: 1, idField: "id", imageField: "a.b.c", titleField: "a.x", authorField: "a.b.c")
        #expect(items.map(\.title) == ["literal", ""])
        #expect(items.map(\.author) == ["deep", nil])
        #expect(items[1].images.isEmpty)
    }
}

@Suite("FeedText image URL check")
struct FeedTextImageURLTests {
    /// The ASCII fast path and the general rules (WHATWG-style: trim, drop tabs and newlines,
    /// http(s) with a host, encode what a browser encodes) give these answers.
    @Test(arguments: [
        ("http://x", "http://x"), ("https://x", "https://x"), ("https://", nil), ("http://", nil),
        ("HTTPS://CDN.example/A.JPG", "HTTPS://CDN.example/A.JPG"), ("hTTp://a/b?c=d&e=f", "hTTp://a/b?c=d&e=f"),
        (" https://a/b", "https://a/b"), ("https://a/b ", "https://a/b"), ("https://a b", nil), ("https:/a", nil),
        ("https:a", nil), ("ftp://a", nil), ("httpx://a", nil), ("https://a/\u{7f}", nil),
        ("https://a/é", "https://a/%C3%A9"), ("https://a/b c?d e#f g", "https://a/b%20c?d%20e#f%20g"),
        ("https://a\\b\\c.png", "https://a/b/c.png"), ("javascript:alert(1)", nil), ("https://a\t/b", "https://a/b"),
        ("https//a", nil), ("http:://a", nil), ("https:///", nil), ("http://u:p@/x", nil),
        (String(repeating: "a", count: 9000), nil), ("https://" + String(repeating: "a", count: 8200), nil),
    ] as [(String, String?)])
    func fastPathAgreesWithTheRules(url: String, expected: String?) {
        let result = FeedText.checkImageURL(url)
        if let expected {
            #expect(result == .ok(expected), "\(url.prefix(40))")
        } else if case .invalid = result {
        } else {
            Issue.record("\(url.prefix(40)): expected invalid, got \(result)")
        }
        #expect(FeedText.checkImageURL("") == .absent)
        #expect(FeedText.checkImageURL("   ") == .absent)
    }
}
