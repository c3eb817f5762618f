import CCurl
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlHTTP

@Suite("HTTP request validation and error mapping")
struct HTTPValidationTests {
    @Test(arguments: ["http://example.com", "https://example.com/a?b=c#d", "HTTP://EXAMPLE.COM/",
                      "http://127.0.0.1:8080/x", "https://[::1]:443/"])
    func acceptedURLs(url: String) throws {
        try HTTPRequest.validateURL(url)
    }

    @Test(arguments: [
        ("file:///etc/passwd", "unsupported"), ("ftp://h/x", "unsupported"), ("javascript:alert(1)", "unsupported"),
        ("mailto:a@b", "unsupported"), ("", "invalid"), ("//host/x", "invalid"), ("http:/x", "invalid"),
        ("http://", "invalid"), ("http://?q", "invalid"), ("http://h/a\nb", "invalid"), ("http://h/\u{0}", "invalid"),
        ("1http://h", "invalid"),
    ])
    func rejectedURLs(url: String, kind: String) {
        do {
            try HTTPRequest.validateURL(url)
            Issue.record("\(url.debugDescription) was accepted")
        } catch {
            switch (error, kind) {
            case (.unsupportedScheme, "unsupported"), (.invalidURL, "invalid"):
                break
            default:
                Issue.record("\(url.debugDescription): got \(error), expected \(kind)")
            }
        }
    }

    @Test func overlongURLIsRejected() {
        let long = "http://h/" + String(repeating: "a", count: HTTPRequest.maxURLLength)
        #expect(throws: HTTPError.invalidURL("URL longer than \(HTTPRequest.maxURLLength) bytes")) {
            try HTTPRequest.validateURL(long)
        }
    }

    @Test func requestChecks() {
        var get = HTTPRequest(url: "http://h/")
        get.body = [1]
        #expect(throws: HTTPError.self) { try get.validate() }
        let badName = HTTPRequest(url: "http://h/", headers: [HTTPHeader(name: "X Y", value: "1")])
        #expect(throws: HTTPError.self) { try badName.validate() }
        let fine = HTTPRequest(url: "http://h/", method: .post, headers: [HTTPHeader(name: "X-Y", value: "")], body: [])
        #expect(throws: Never.self) { try fine.validate() }
    }

    @Test func curlCodesMapToErrors() {
        func map(_ code: CURLcode, bytes: Int64 = 0) -> HTTPError {
            HTTPError.fromCurl(code: code.rawValue, message: "m", bytesReceived: bytes, expected: 10, maxBytes: 99)
        }
        #expect(map(CURLE_UNSUPPORTED_PROTOCOL) == .unsupportedScheme("m"))
        #expect(map(CURLE_TOO_MANY_REDIRECTS) == .tooManyRedirects)
        #expect(map(CURLE_OPERATION_TIMEDOUT) == .timedOut("m"))
        #expect(map(CURLE_FILESIZE_EXCEEDED) == .bodyTooLarge(limit: 99))
        #expect(map(CURLE_PARTIAL_FILE, bytes: 4) == .partialBody(received: 4, expected: 10))
        #expect(map(CURLE_RECV_ERROR, bytes: 4) == .partialBody(received: 4, expected: 10))
        #expect(map(CURLE_RECV_ERROR) == .connectionFailed("m"))
        #expect(map(CURLE_COULDNT_CONNECT) == .connectionFailed("m"))
        #expect(map(CURLE_GOT_NOTHING) == .connectionFailed("m"))
        #expect(map(CURLE_PEER_FAILED_VERIFICATION) == .curl(code: 60, message: "m"))
        #expect(HTTPError.timedOut("x").isTransient)
        #expect(!HTTPError.tooManyRedirects.isTransient)
        #expect(!HTTPError.curl(code: 60, message: "m").isTransient)
    }

    @Test func responseHeaderLookupIsCaseInsensitive() {
        let r = HTTPResponse(status: 200, headers: [HTTPHeader(name: "etag", value: "\"a\""),
                                                   HTTPHeader(name: "content-length", value: "12")])
        #expect(r.header("ETag") == "\"a\"")
        #expect(r.header("etags") == nil)
        #expect(r.etag == "\"a\"")
        #expect(r.contentLength == 12)
        #expect(r.contentType == nil)
    }
}
