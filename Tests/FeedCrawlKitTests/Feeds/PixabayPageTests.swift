import Testing
@testable import FeedCrawlKit

@Suite struct PixabayPageTests {
    @Test func decodesTheRealCompactBody() throws {
        let page = try PixabayPage.decode(PixabayFixtures.compactPage.bytes, page: 1)
        #expect(page.total == 1954)
        #expect(page.totalHits == 500)
        #expect(page.items.map(\.id) == ["3386356", "242520", "3741880"])
        let first = page.items[0]
        #expect(first == FeedItem(
            source: "pixabay", id: "3386356", page: 1, title: "piglet, mammal, species",
            images: [FeedImage(variant: "preview", url: "https://cdn.pixabay.com/photo/2018/05/09/22/44/piglet-3386356_150.jpg")],
            author: "RoyBuri", pageURL: "https://pixabay.com/photos/piglet-mammal-species-fauna-3386356/", problem: nil))
        #expect(page.items.allSatisfy { $0.problem == nil })
    }

    @Test func eachVariantComesFromItsOwnFieldInTheOrderAsked() throws {
        let page = try PixabayPage.decode(
            PixabayFixtures.compactPage.bytes, page: 2, variants: [.large, .preview, .webformat], source: "pix")
        let item = page.items[0]
        #expect(item.images.map(\.variant) == ["large", "preview", "webformat"])
        #expect(item.url("large")?.hasSuffix("_1280.jpg") == true)
        #expect(item.url("preview")?.hasSuffix("_150.jpg") == true)
        #expect(item.url("webformat")?.hasPrefix("https://pixabay.com/get/g559a") == true)
        #expect(item.images.allSatisfy { $0.problem == nil })
        #expect(item.source == "pix")
        #expect(item.page == 2)
        let webOnly = try PixabayPage.decode(PixabayFixtures.compactPage.bytes, page: 1, variants: [.webformat])
        #expect(webOnly.items.allSatisfy { $0.images.map(\.variant) == ["webformat"] })
    }

    @Test func aVariantTheHitLacksIsAbsentWithoutFallback() throws {
        let body = #"{"hits":[{"id":1,"previewURL":"","webformatURL":"https://pixabay.com/get/w_640.jpg"},{"id":2,"largeImageURL":"https://pixabay.com/get/l_1280.jpg","previewURL":null}]}"#
        let page = try PixabayPage.decode(body.bytes, page: 1, variants: [.preview, .large])
        #expect(page.items[0].images.isEmpty)  // no preview and no large: webformat is not asked for
        #expect(page.items[1].images == [FeedImage(variant: "large", url: "https://pixabay.com/get/l_1280.jpg")])
        #expect(page.items.allSatisfy { $0.problem == nil })
    }

    @Test func anInvalidURLBecomesAnImageWithAProblem() throws {
        let body = #"{"hits":[{"id":1,"previewURL":"javascript:alert(1)","webformatURL":"  https://pixabay.com/get/w_640.jpg ","largeImageURL":"ftp://x/y.jpg"}]}"#
        let item = try #require(try PixabayPage.decode(body.bytes, page: 1, variants: [.preview, .webformat, .large]).items.first)
        #expect(item.problem == nil)
        #expect(item.images.count == 3)
        #expect(item.image("preview")?.url == "javascript:alert(1)")
        #expect(item.image("preview")?.problem?.hasPrefix("image URL is not an http(s) URL") == true)
        #expect(item.image("webformat") == FeedImage(variant: "webformat", url: "https://pixabay.com/get/w_640.jpg"))  // trimmed
        #expect(item.image("large")?.problem != nil)
    }

    @Test func pageURLOnlyWhenHTTP() throws {
        let pages = ["https://pixabay.com/photos/x-1/", "http://pixabay.com/photos/x-2/", "javascript:alert(1)",
                     "file:///etc/passwd", "", "//pixabay.com/x", "data:text/html,<b>x</b>"]
        let hits = pages.enumerated().map { #"{"id":\#($0.offset),"pageURL":"\#($0.element)"}"# }.joined(separator: ",")
        let page = try PixabayPage.decode("{\"hits\":[\(hits)]}".bytes, page: 1)
        #expect(page.items.map(\.pageURL) == ["https://pixabay.com/photos/x-1/", "http://pixabay.com/photos/x-2/", nil, nil, nil, nil, nil])
        let numeric = try PixabayPage.decode(#"{"hits":[{"id":1,"pageURL":42}]}"#.bytes, page: 1)
        #expect(numeric.items[0].pageURL == nil)
    }

    @Test func mixedTypesAndBadHitsDoNotSinkThePage() throws {
        let page = try PixabayPage.decode(PixabayFixtures.mixedPage.bytes, page: 3)
        #expect(page.total == 1954) // "1954" as a string
        #expect(page.totalHits == 500)
        #expect(page.items.count == 8)
        let items = page.items

        // id as a string
        #expect(items[0].id == "6000964")
        #expect(items[0].images == [FeedImage(variant: "preview", url: "https://cdn.pixabay.com/photo/2021/02/10/05/44/golden-gate-bridge-6000964_150.jpg")])
        #expect(items[0].author == "kauci")
        #expect(items[0].problem == nil)

        // id as 951006.0; "" preview: no image (no fallback to webformat)
        #expect(items[1].id == "951006")
        #expect(items[1].images.isEmpty)

        #expect(items[2] == FeedItem(source: "pixabay", id: "page3-index2", page: 3, problem: "hit is a string, not an object"))
        #expect(items[3] == FeedItem(source: "pixabay", id: "page3-index3", page: 3, problem: "hit is null, not an object"))

        #expect(items[4].id == "page3-index4")
        #expect(items[4].problem == "missing id")
        #expect(items[4].title == "no id here")
        #expect(items[4].url("preview") == "https://cdn.pixabay.com/photo/x_150.jpg")

        // An unusable id is the item's problem; an unusable URL its image's.
        #expect(items[5].id == "page3-index5")
        #expect(items[5].problem?.contains("invalid id (an object)") == true)
        #expect(items[5].problem?.contains("http(s)") != true)
        #expect(items[5].image("preview")?.problem?.contains("not an http(s) URL") == true)
        #expect(items[5].author == nil) // "" user

        // null tags / null preview / numeric user
        #expect(items[6] == FeedItem(source: "pixabay", id: "1325881", page: 3, title: "", author: "42",
                                     pageURL: "https://pixabay.com/photos/golden-gate-bridge-1325881/", problem: nil))

        // big id keeps all digits; whitespace in tags collapsed; URL trimmed
        #expect(items[7].id == "12345678901234")
        #expect(items[7].title == "multi line tags")
        #expect(items[7].url("preview") == "https://cdn.pixabay.com/photo/big_150.jpg")
    }

    @Test func emptyResultIsNotAnError() throws {
        let page = try PixabayPage.decode(PixabayFixtures.emptyResult.bytes, page: 1)
        #expect(page == PixabayPage(total: 0, totalHits: 0, items: []))
    }

    @Test func missingTotalsFallBack() throws {
        let onlyTotal = try PixabayPage.decode(#"{"total":7,"hits":[]}"#.bytes, page: 1)
        #expect(onlyTotal.totalHits == 7 && onlyTotal.total == 7)
        let none = try PixabayPage.decode(#"{"hits":[{"id":1},{"id":2}]}"#.bytes, page: 1)
        #expect(none.totalHits == 2 && none.total == 2)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let page = try PixabayPage.decode([0xEF, 0xBB, 0xBF] + PixabayFixtures.emptyResult.bytes, page: 1)
        #expect(page.totalHits == 0)
    }

    @Test(arguments: [
        ("[]", "expected a JSON object at top level, got an array"),
        (#"{"total":1}"#, "missing \"hits\""),
        (#"{"hits":{}}"#, "\"hits\" is an object, expected an array"),
        (#"{"hits":null}"#, "\"hits\" is null, expected an array"),
        ("", "empty body"),
        ("  \n", "empty body"),
    ])
    func topLevelShapeErrorsThrowWithAReason(body: String, reason: String) {
        let error = #expect(throws: FeedDecodeError.self) {
            try PixabayPage.decode(body.bytes, page: 1)
        }
        #expect(error?.reason == "Pixabay page: \(reason)")
    }

    @Test func invalidJSONThrows() {
        for body in [PixabayFixtures.docsExample, "<html><body>Application error</body></html>", PixabayFixtures.errorInvalidKey] {
            let error = #expect(throws: FeedDecodeError.self) {
                try PixabayPage.decode(body.bytes, page: 1)
            }
            #expect(error?.reason.hasPrefix("Pixabay page: invalid JSON") == true, "\(error?.reason ?? "")")
        }
    }
}
