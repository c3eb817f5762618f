import CCurl
import Testing
@testable import FeedCrawlKit

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
        func map(_ code: CURLcode, bytes: Int64 = 0, recorded: HTTPError? = nil) -> HTTPError {
            HTTPError.fromCurl(code: code.rawValue, message: "m", recorded: recorded,
                               bytesReceived: bytes, expected: 10, maxBytes: 99)
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
        #expect(map(CURLE_WRITE_ERROR, recorded: .bodyTooLarge(limit: 5)) == .bodyTooLarge(limit: 5))
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

@Suite("HTTP URL check fast path")
struct HTTPURLFastPathTests {
    /// The one-pass check accepts exactly what the step-by-step check accepts, over URLs built
    /// from the characters that matter (scheme letters in both cases, separators, controls).
    @Test func fastPathAgreesWithTheFullCheck() {
        let schemes = ["http", "HTTPS", "hTtP", "https", "httpss", "ftp", "1http", "h", ""]
        let separators = ["://", ":/", "//", ":", ":///", "://?", "://#", "", ":// "]
        let pieces = ["http", "s", ":", "//", "/", "?", "#", "h", "@", "[::1]", ":80",
                      " ", "\n", "\u{7F}", "\u{0}", "é", "1", "+", "a.b", ""]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var accepted = 0
        for _ in 0..<20_000 {
            var url = schemes[Int(next() % UInt64(schemes.count))] + separators[Int(next() % UInt64(separators.count))]
            for _ in 0..<Int(next() % 6) { url += pieces[Int(next() % UInt64(pieces.count))] }
            var bytes = url
            let fast = bytes.withUTF8 { HTTPRequest.isPlainHTTPURL($0) }
            let full = (try? HTTPRequest.checkURL(url)) != nil
            #expect(fast == full, "\(url.debugDescription)")
            if full { accepted += 1 }
        }
        // Both outcomes were exercised.
        #expect(accepted > 100)
        #expect(accepted < 19_000)
        var long = "http://h/" + String(repeating: "a", count: HTTPRequest.maxURLLength)
        #expect(!long.withUTF8 { HTTPRequest.isPlainHTTPURL($0) })
    }
}
