import Testing
@testable import FeedCrawlKit

@Suite struct ArrayFeedTests {
    @Test func pageURL() {
        func source(_ url: String, perPage: Int) -> ArraySourceConfiguration {
            var source = ArraySourceConfiguration(url: url)
            source.perPage = perPage
            return source
        }
        #expect(source("https://api.punkapi.com/v2/beers", perPage: 25).pageURL(2)
            == "https://api.punkapi.com/v2/beers?page=2&per_page=25")
        #expect(source("http://127.0.0.1:9/v2/beers?abv_gt=5", perPage: 80).pageURL(1)
            == "http://127.0.0.1:9/v2/beers?abv_gt=5&page=1&per_page=80")
        #expect(source("https://h/items", perPage: 0).pageURL(0) == "https://h/items?page=1&per_page=1")
    }

    @Test func decodesBeers() throws {
        let items = try ArrayPage.decode(ArrayFixtures.beers.bytes, page: 1)
        #expect(items.map(\.id) == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "169", "314"])
        #expect(items[0] == FeedItem(source: "array", id: "1", page: 1, title: "Buzz",
                                     images: [FeedImage(variant: "image", url: "https://images.punkapi.com/v2/keg.png")]))
        #expect(items[1].images == [FeedImage(variant: "image", url: "https://images.punkapi.com/v2/2.png")])
        let mango = try #require(items.last)
        #expect(mango.title == "Manic Mango")
        #expect(mango.images.isEmpty)
        #expect(mango.problem == nil)
    }

    @Test func configurableAndDottedFields() throws {
        let items = try ArrayPage.decode(ArrayFixtures.beers.bytes, page: 3, idField: "volume.value", imageField: "image_url",
                                         titleField: "volume.unit", authorField: "contributed_by", source: "beers")
        #expect(items[0].id == "20")
        #expect(items[0].title == "litres")
        #expect(items[0].author == "Sam Mason <samjbmason>")
        #expect(items[0].source == "beers")
        #expect(items[0].page == 3)
    }

    @Test func literalDottedKeyWinsOverThePath() throws {
        let items = try ArrayPage.decode(#"[{"id":"x","a.b":"literal","a":{"b":"nested"}},{"id":"y","a":{"b":"nested"}}]"#.bytes,
                                         page: 1, titleField: "a.b")
        #expect(items.map(\.title) == ["literal", "nested"])
    }

    @Test func badElementsBecomeProblemItems() throws {
        let body = #"[{"id":"abc","title":"t","image_url":""},{"name":"no id"},7,null,{"id":5,"image_url":12},{"id":true}]"#
        let items = try ArrayPage.decode(body.bytes, page: 2)
        #expect(items[0] == FeedItem(source: "array", id: "abc", page: 2, title: "t"))
        #expect(items[1] == FeedItem(source: "array", id: "page2-index1", page: 2, title: "no id", problem: "missing id"))
        #expect(items[2].problem == "element is a number, not an object")
        #expect(items[3].problem == "element is null, not an object")
        #expect(items[4].id == "5")
        #expect(items[4].problem == nil)  // the listing is usable; its image is not
        #expect(items[4].images == [FeedImage(variant: "image", url: "", problem: "image field is a number, not a URL")])
        #expect(items[5].problem == "invalid id (a boolean)")
        let refused = try ArrayPage.decode(#"[{"id":1,"image_url":"file:///etc/passwd"}]"#.bytes, page: 1)
        #expect(refused[0].image("image")?.problem?.hasPrefix("image URL is not an http(s) URL") == true)
        #expect(refused[0].image("image")?.url == "file:///etc/passwd")
    }

    @Test func errorObjectIsAShapeErrorQuotingItsMessage() {
        let error = #expect(throws: FeedDecodeError.self) {
            try ArrayPage.decode(ArrayFixtures.badRequest.bytes, page: 1)
        }
        #expect(error?.reason == "array page: expected a JSON array at top level, got an object (message: Invalid query params)")
    }

    @Test func emptyArrayIsAnEmptyPage() throws {
        #expect(try ArrayPage.decode("[]".bytes, page: 14).isEmpty)
    }

    @Test(arguments: [(0, 25, true), (24, 25, true), (25, 25, false), (80, 80, false), (1, 1, false)])
    func stopRule(count: Int, perPage: Int, last: Bool) {
        #expect(ArrayPage.isLastPage(itemCount: count, perPage: perPage) == last)
    }

    private func items(_ ids: ClosedRange<Int>, page: Int) -> [FeedItem] {
        ids.map { FeedItem(source: "array", id: String($0), page: page) }
    }

    @Test func pagingEndsOnAShortPage() {
        var paging = ArrayPaging(requestedPages: 10, perPage: 5)
        #expect(paging.accept(items(1...5, page: 1)) == .next)
        #expect(paging.page == 2)
        #expect(paging.accept(items(6...10, page: 2)) == .next)
        #expect(paging.page == 3)
        #expect(paging.accept(items(11...12, page: 3)) == .done)
        #expect(paging.newItems.map(\.id) == ["11", "12"])
        #expect(paging.accept(items(13...17, page: 4)) == .done) // finished stays finished
        #expect(paging.newItems.isEmpty)
    }

    @Test func pagingEndsOnAnEmptyPageAndAtTheRequestedCount() {
        var empty = ArrayPaging(requestedPages: 10, perPage: 5)
        #expect(empty.accept(items(1...5, page: 1)) == .next)
        #expect(empty.page == 2)
        #expect(empty.accept([]) == .done)
        var capped = ArrayPaging(requestedPages: 2, perPage: 5)
        #expect(capped.accept(items(1...5, page: 1)) == .next)
        #expect(capped.page == 2)
        #expect(capped.accept(items(6...10, page: 2)) == .done)
    }

    @Test func serverIgnoringThePageParameterIsStopped() {
        var paging = ArrayPaging(requestedPages: 10, perPage: 5)
        _ = paging.accept(items(1...5, page: 1))
        guard case .stop(let warning) = paging.accept(items(1...5, page: 2)) else {
            Issue.record("expected stop")
            return
        }
        #expect(warning.contains("ignore the page parameter"))
        #expect(paging.newItems.isEmpty)
    }
}
