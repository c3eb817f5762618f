import Testing
@testable import FeedCrawlKit

@Suite struct PixabayQueryTests {
    @Test func buildsTheDocumentedParameters() {
        let q = PixabayQuery(baseURL: "https://pixabay.com/api/", key: "abc123", q: "yellow flowers", imageType: "photo", perPage: 200)
        #expect(q.url(page: 3) == "https://pixabay.com/api/?key=abc123&q=yellow%20flowers&image_type=photo&per_page=200&page=3")
    }

    @Test func defaultsAreAllImagesAnd100PerPage() {
        let q = PixabayQuery(baseURL: "https://pixabay.com/api/", key: "k")
        #expect(q.perPage == 100)
        #expect(q.url(page: 1) == "https://pixabay.com/api/?key=k&image_type=all&per_page=100&page=1")
    }

    @Test func perPageIsClampedTo3Through200() {
        #expect(PixabayQuery(baseURL: "https://h/", key: "k", perPage: 1).perPage == 3)
        #expect(PixabayQuery(baseURL: "https://h/", key: "k", perPage: 500).perPage == 200)
        #expect(PixabayQuery(baseURL: "https://h/", key: "k", perPage: 20).perPage == 20)
    }

    @Test func percentEncodesReservedAndNonASCIICharacters() {
        let q = PixabayQuery(baseURL: "https://h/api/", key: "a&b=c", q: "café & crème+1/2?#,", imageType: nil, perPage: 20)
        #expect(q.url(page: 1) == "https://h/api/?key=a%26b%3Dc&q=caf%C3%A9%20%26%20cr%C3%A8me%2B1%2F2%3F%23%2C&per_page=20&page=1")
    }

    @Test func keepsAQueryAlreadyInTheBaseURLAndDropsAFragment() {
        #expect(PixabayQuery(baseURL: "http://127.0.0.1:8080/api/?lang=de", key: "k", imageType: nil, perPage: 3).url(page: 2)
            == "http://127.0.0.1:8080/api/?lang=de&key=k&per_page=3&page=2")
        #expect(PixabayQuery(baseURL: "https://h/api/?", key: "k", imageType: nil, perPage: 3).url(page: 2)
            == "https://h/api/?key=k&per_page=3&page=2")
        #expect(PixabayQuery(baseURL: "https://h/api/#top", key: "k", imageType: nil, perPage: 3).url(page: 0)
            == "https://h/api/?key=k&per_page=3&page=1")
    }

    @Test func emptySearchTermIsOmitted() {
        #expect(!PixabayQuery(baseURL: "https://h/", key: "k", q: "").url(page: 1).contains("q="))
    }
}
