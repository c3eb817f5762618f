import Testing
@testable import FeedCrawlKit

@Suite struct PixabayPageTests {
    @Test func decodesTheRealCompactBody() throws {
        let page = try PixabayPage.decode(PixabayFixtures.compactPage.bytes, page: 1)
        #expect(page.total == 1954)
        #expect(page.totalHits == 500)
        #expect(page.items.map(\.id) == ["3386356", "242520", "3741880"])
        let first = page.items[0]
        #expect(first == FeedItem(source: "pixabay", id: "3386356", page: 1, title: "piglet, mammal, species",
                                  imageURL: "https://cdn.pixabay.com/photo/2018/05/09/22/44/piglet-3386356_150.jpg",
                                  author: "RoyBuri", problem: nil))
        #expect(page.hits[0].pageURL == "https://pixabay.com/photos/piglet-mammal-species-fauna-3386356/")
        #expect(page.hits[0].type == "photo")
        #expect(page.hits[1].largeImageURL?.hasSuffix("_1280.jpg") == true)
        #expect(page.items.allSatisfy { $0.problem == nil })
    }

    @Test func imageFieldChoice() throws {
        let page = try PixabayPage.decode(PixabayFixtures.compactPage.bytes, page: 2, imageField: .webformat, source: "pix")
        #expect(page.items[0].imageURL?.hasPrefix("https://pixabay.com/get/g559a") == true)
        #expect(page.items[0].source == "pix")
        #expect(page.items[0].page == 2)
    }

    @Test func mixedTypesAndBadHitsDoNotSinkThePage() throws {
        let page = try PixabayPage.decode(PixabayFixtures.mixedPage.bytes, page: 3)
        #expect(page.total == 1954) // "1954" as a string
        #expect(page.totalHits == 500)
        #expect(page.hits.count == 8)
        let items = page.items

        // id as a string; "" webformat ignored; Int flag 0 → false
        #expect(items[0].id == "6000964")
        #expect(items[0].imageURL == "https://cdn.pixabay.com/photo/2021/02/10/05/44/golden-gate-bridge-6000964_150.jpg")
        #expect(items[0].author == "kauci")
        #expect(items[0].problem == nil)
        #expect(page.hits[0].isLowQuality == false)
        #expect(page.hits[0].isAiGenerated == false)
        #expect(page.hits[0].webformatURL == nil)

        // id as 951006.0; "" preview → falls back to webformat; flag 1 → true, "true" → true
        #expect(items[1].id == "951006")
        #expect(items[1].imageURL == "https://pixabay.com/get/ge3a36be_640.jpg")
        #expect(page.hits[1].isLowQuality == true)
        #expect(page.hits[1].isAiGenerated == true)

        #expect(items[2] == FeedItem(source: "pixabay", id: "page3-index2", page: 3, problem: "hit is a string, not an object"))
        #expect(items[3] == FeedItem(source: "pixabay", id: "page3-index3", page: 3, problem: "hit is null, not an object"))

        #expect(items[4].id == "page3-index4")
        #expect(items[4].problem == "missing id")
        #expect(items[4].title == "no id here")
        #expect(items[4].imageURL == "https://cdn.pixabay.com/photo/x_150.jpg")

        #expect(items[5].id == "page3-index5")
        #expect(items[5].problem?.contains("invalid id (an object)") == true)
        #expect(items[5].problem?.contains("not an http(s) URL") == true)
        #expect(items[5].imageURL == nil)
        #expect(items[5].author == nil) // "" user

        // null tags / null preview / numeric user
        #expect(items[6] == FeedItem(source: "pixabay", id: "1325881", page: 3, title: "", imageURL: nil, author: "42", problem: nil))
        #expect(page.hits[6].pageURL == "https://pixabay.com/photos/golden-gate-bridge-1325881/")

        // big id keeps all digits; whitespace in tags collapsed; URL trimmed
        #expect(items[7].id == "12345678901234")
        #expect(items[7].title == "multi line tags")
        #expect(items[7].imageURL == "https://cdn.pixabay.com/photo/big_150.jpg")
    }

    @Test func emptyResultIsNotAnError() throws {
        let page = try PixabayPage.decode(PixabayFixtures.emptyResult.bytes, page: 1)
        #expect(page == PixabayPage(total: 0, totalHits: 0, hits: []))
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

    @Test func oversizedBodyIsRefusedBeforeParsing() {
        let body = [UInt8](repeating: 0x20, count: FeedJSON.maxBodyBytes + 1)
        let error = #expect(throws: FeedDecodeError.self) {
            try PixabayPage.decode(body, page: 1)
        }
        #expect(error?.reason.contains("body too large") == true)
    }

    @Test func tooManyHitsIsAShapeError() {
        let hits = Array(repeating: "{}", count: FeedJSON.maxItemsPerPage + 1).joined(separator: ",")
        let error = #expect(throws: FeedDecodeError.self) {
            try PixabayPage.decode("{\"hits\":[\(hits)]}".bytes, page: 1)
        }
        #expect(error?.reason.contains("limit \(FeedJSON.maxItemsPerPage)") == true)
    }
}
