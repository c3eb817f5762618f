import Testing
@testable import FeedCrawlKit

@Suite("Image URL problems")
struct URLProblemTests {
    @Test func reasonsNameWhatIsWrong() {
        #expect(URLCheck.problem("https://example.com/a.jpg") == nil)
        #expect(URLCheck.problem("HTTP://example.com/a.jpg") == nil)
        #expect(URLCheck.problem("ftp://example.com/a.jpg")?.contains("unsupported URL scheme") == true)
        #expect(URLCheck.problem("https://example.com/" + String(repeating: "a", count: 5_000))?.contains("too long") == true)
        #expect(URLCheck.problem("https://example.com/a b.jpg")?.contains("control character") == true)
    }
}
