import Testing
@testable import FeedCrawlKit

/// The fast scanner must agree with the JSONDecoder path whenever it answers at all.
@Suite("Pixabay fast decoder")
struct PixabayFastDecoderTests {
    /// Both paths' pages, as hits (nil when that path gives up or throws).
    static func both(_ body: String) -> (fast: [PixabayHit]?, slow: [PixabayHit]?, totals: Bool) {
        let bytes = Array(body.utf8)
        let fast = PixabayFastDecoder.decode(bytes)
        let slow = try? FeedJSON.decode(PixabayRawPage.self, from: bytes, what: "Pixabay page")
        func hits(_ raw: PixabayRawPage?) -> [PixabayHit]? {
            raw.map { $0.hits.enumerated().map { $0.element.makeHit(source: "p", page: 1, index: $0.offset, variants: PixabayVariant.allCases) } }
        }
        let totals = fast == nil || (fast?.total == slow?.total && fast?.totalHits == slow?.totalHits)
        return (hits(fast), hits(slow), totals)
    }

    static let agreeing: [String] = [
        PixabayFixtures.compactPage,
        PixabayFixtures.emptyResult,
        #"{"hits":[{"id":1,"previewURL":"http://a/1.jpg","tags":"a\"b\\c\/d\n","user":7,"isAiGenerated":1,"isLowQuality":"no"}],"total":"12","x":[1,-2.5e3,{"y":null}]}"#,
        #" { "totalHits" : 3 , "hits" : [ { "id" : "  42 " , "tags" : null , "type" : 5, "pageURL": true } ] } "#,
        #"{"total":1,"totalHits":-7,"hits":[{"id":-0,"webformatURL":"https://x/y.jpg","largeImageURL":""}]}"#,
        #"{"hits":[{"id":9223372036854775807,"user":"u","tags":"t","junk":"\u00e9\ud83d\ude00"}]}"#,
        #"{"hits":[{"id":1,"tags":"\u0041\u00e9\ud83d\ude00\u0000"}]}"#,
    ]

    @Test(arguments: agreeing.indices)
    func fastPathAnswersAndAgrees(index: Int) throws {
        let result = Self.both(Self.agreeing[index])
        let fast = try #require(result.fast, "the fast path should answer this body")
        #expect(fast == result.slow)
        #expect(result.totals)
    }

    /// Shapes the fast path leaves to JSONDecoder, and broken JSON it must not accept.
    static let declined: [String] = [
        PixabayFixtures.mixedPage,            // non-object hits, 951006.0
        PixabayFixtures.docsExample,          // invalid JSON
        #"{"hits":[{"id":1}]} x"#,            // trailing garbage
        #"{"hits":[{"id":1,"id":2}]}"#,       // repeated field
        #"{"hits":[{"id":01}]}"#,             // leading zero
        #"{"hits":[{"id":1,"tags":"é"}]}"#,   // non-ASCII
        #"{"hits":[{"id":99999999999999999999}]}"#,
        #"{"hits":[{"id":1,"x":"a\qb"}]}"#,   // bad escape in a skipped value
        #"{"hits":[{"id":1,}]}"#,
        #"{"hits":{}}"#,
        #"{"total":1}"#,
        #"[]"#,
        "",
        "{\"hits\":[{\"id\":1,\"tags\":\"a\tb\"}]}", // raw control character
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ]

    @Test(arguments: declined.indices)
    func fastPathDeclines(index: Int) {
        #expect(PixabayFastDecoder.decode(Array(Self.declined[index].utf8)) == nil)
    }

    /// Every prefix of a real page is declined or agrees (truncated bodies are common).
    @Test func truncatedBodiesNeverDisagree() {
        let body = PixabayFixtures.compactPage
        let bytes = Array(body.utf8)
        for cut in stride(from: 0, to: bytes.count, by: 37) {
            let text = String(decoding: bytes[..<cut], as: UTF8.self)
            let result = Self.both(text)
            if result.fast != nil { #expect(result.fast == result.slow, "cut at \(cut)") }
        }
    }

    @Test(arguments: [#"\ud83d"#, #"\ude00x"#, #"\u0000"#, #"\uD83D\uDE00"#])
    func escapesInSkippedValuesMatchTheSlowPath(escape: String) {
        let body = #"{"hits":[{"id":1,"junk":""# + escape + #""}],"more":""# + escape + #""}"#
        let result = Self.both(body)
        if result.fast != nil { #expect(result.fast == result.slow) }
    }

    @Test func decodeUsesTheFastPathResult() throws {
        let page = try PixabayPage.decode(PixabayFixtures.compactPage.bytes, page: 1)
        #expect(page.items.map(\.id) == ["3386356", "242520", "3741880"])
        #expect(page.total == 1954 && page.totalHits == 500)
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
