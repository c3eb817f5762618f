import Testing
@testable import FeedCrawlKit

@Suite struct PixabayPageURLTests {
    private func config(_ url: String, key: String = "k", q: String? = nil, perPage: Int = 100) -> PixabaySourceConfiguration {
        var config = PixabaySourceConfiguration(url: url, key: key, perPage: perPage)
        config.query = q
        return config
    }

    @Test func buildsTheDocumentedParameters() {
        var c = config("https://pixabay.com/api/", key: "abc123", q: "yellow flowers", perPage: 200)
        c.imageType = "photo"
        #expect(c.pageURL(3) == "https://pixabay.com/api/?key=abc123&q=yellow%20flowers&image_type=photo&per_page=200&page=3")
    }

    @Test func defaultsAreAllImagesAnd100PerPage() {
        let c = PixabaySourceConfiguration(url: "https://pixabay.com/api/", key: "k")
        #expect(c.sentPerPage == 100)
        #expect(c.pageURL(1) == "https://pixabay.com/api/?key=k&image_type=all&per_page=100&page=1")
    }

    @Test func perPageIsClampedTo3Through200() {
        #expect(config("https://h/", perPage: 1).sentPerPage == 3)
        #expect(config("https://h/", perPage: 500).pageURL(1).hasSuffix("&per_page=200&page=1"))
        #expect(config("https://h/", perPage: 20).sentPerPage == 20)
    }

    @Test func percentEncodesReservedAndNonASCIICharacters() {
        let c = config("https://h/api/", key: "a&b=c", q: "café & crème+1/2?#,", perPage: 20)
        #expect(c.pageURL(1) == "https://h/api/?key=a%26b%3Dc&q=caf%C3%A9%20%26%20cr%C3%A8me%2B1%2F2%3F%23%2C&image_type=all&per_page=20&page=1")
    }

    @Test func keepsAQueryAlreadyInTheBaseURLAndDropsAFragment() {
        #expect(config("http://127.0.0.1:8080/api/?lang=de", perPage: 3).pageURL(2)
            == "http://127.0.0.1:8080/api/?lang=de&key=k&image_type=all&per_page=3&page=2")
        #expect(config("https://h/api/?", perPage: 3).pageURL(2) == "https://h/api/?key=k&image_type=all&per_page=3&page=2")
        #expect(config("https://h/api/#top", perPage: 3).pageURL(0) == "https://h/api/?key=k&image_type=all&per_page=3&page=1")
    }

    @Test func emptySearchTermIsOmitted() {
        #expect(!config("https://h/", q: "").pageURL(1).contains("q="))
    }
}
