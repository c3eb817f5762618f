import Testing
@testable import FeedCrawlKit

@Suite("Image URL problems")
struct URLProblemTests {
    /// The host a URL is queued under (per-host limits): lowercased, without user info or port.
    @Test(arguments: [
        ("https://Example.COM/a.jpg", "example.com"),
        ("HTTP://h:8080/x", "h"),
        ("http://user:pw@Host.example:81?q", "host.example"),
        ("http://a@b@c/x", "c"),
        ("https://[::1]:443/x", "::1"),
        ("https://[FE80::1]/x", "fe80::1"),
        ("http://h#frag", "h"),
        ("http://", ""),
        ("http://@/x", ""),
        ("ftp://h/x", ""),
        ("http:/h/x", ""),
        ("http\u{1A}//h/x", ""),
        ("https://BÜCHER.example/x", "bücher.example"),
    ])
    func hostOfURL(url: String, host: String) {
        #expect(URLCheck.host(of: url) == host)
    }

    @Test func reasonsNameWhatIsWrong() {
        #expect(URLCheck.problem("https://example.com/a.jpg") == nil)
        #expect(URLCheck.problem("HTTP://example.com/a.jpg") == nil)
        #expect(URLCheck.problem("ftp://example.com/a.jpg")?.contains("unsupported URL scheme") == true)
        #expect(URLCheck.problem("https://example.com/" + String(repeating: "a", count: 5_000))?.contains("too long") == true)
        #expect(URLCheck.problem("https://example.com/a b.jpg")?.contains("control character") == true)
    }
}
