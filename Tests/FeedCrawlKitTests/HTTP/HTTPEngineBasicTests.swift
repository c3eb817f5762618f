import Glibc
import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

@Suite("HTTPEngine basics")
struct HTTPEngineBasicTests {
    @Test func getReturnsBodyStatusAndHeaders() async throws {
        let body = patternBytes(20_000)
        let seen = Locked<[String: String]>([:])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0 = req.headers }
            return ServerResponse(status: 200, headers: [
                ("Content-Type", "image/jpeg"), ("ETag", "\"abc\""),
                ("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT"), ("X-RateLimit-Remaining", "42"),
            ], body: .bytes(body))
        }) { server in
            try await HTTPEngine.withEngine(configuration: .init(userAgent: "test-agent/1")) { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/img/1.jpg"))
                #expect(r.status == 200)
                #expect(r.body == body)
                #expect(r.bytesReceived == 20_000)
                #expect(r.contentType == "image/jpeg")
                #expect(r.etag == "\"abc\"")
                #expect(r.lastModified == "Wed, 01 Jan 2020 00:00:00 GMT")
                #expect(r.contentLength == 20_000)
                #expect(r.header("X-RATELIMIT-REMAINING") == "42")
                #expect(r.headers.allSatisfy { $0.name == $0.name.lowercased() })
                #expect(r.effectiveURL == server.baseURL + "/img/1.jpg")
                #expect(r.redirectCount == 0)
                #expect(r.retryAfterSeconds == nil)
            }
        }
        let headers = seen.withLock { $0 }
        #expect(headers["user-agent"] == "test-agent/1")
        #expect(headers["accept-encoding"] == nil)
    }

    @Test func postJSONBodyIsSentAndEchoed() async throws {
        let payload = #"{"query":"{ launches { cursor } }","variables":{"n":1}}"#.bytes
        let seen = Locked<(method: String, type: String?)>(("", nil))
        try await withHTTPServer(handler: { req in
            seen.withLock { $0 = (req.method, req.header("content-type")) }
            return .json(req.body)
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let request = HTTPRequest(url: server.baseURL + "/graphql", method: .post,
                                          headers: [HTTPHeader(name: "Content-Type", value: "application/json")],
                                          body: payload)
                let r = try await engine.perform(request)
                #expect(r.status == 200)
                #expect(r.body == payload)
                #expect(r.contentType == "application/json")
            }
        }
        let (method, type) = seen.withLock { $0 }
        #expect(method == "POST")
        #expect(type == "application/json")
    }

    @Test func emptyPostBodyIsSent() async throws {
        try await withHTTPServer(handler: { req in .text("\(req.method) \(req.body.count)") }) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/p", method: .post))
                #expect(String(decoding: r.body, as: UTF8.self) == "POST 0")
            }
        }
    }

    @Test func putSendsItsBodyAsPut() async throws {
        let payload = "metric 1\n".bytes
        let seen = Locked<[(method: String, body: [UInt8])]>([])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0.append((req.method, req.body)) }
            return .text("ok")
        }) { server in
            try await HTTPEngine.withEngine(configuration: .init(maxConcurrentTransfers: 1)) { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/m", method: .put, body: payload))
                #expect(r.status == 200)
                // The handle is reused: the next request is a plain GET again.
                let next = try await engine.perform(HTTPRequest(url: server.baseURL + "/g"))
                #expect(next.status == 200)
            }
        }
        let requests = seen.withLock { $0 }
        #expect(requests.map(\.method) == ["PUT", "GET"])
        #expect(requests.first?.body == payload)
        #expect(requests.last?.body == [])
    }

    @Test func notFoundIsAResponseNotAnError() async throws {
        try await withHTTPServer(handler: { _ in .text("no such image", status: 404) }) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/missing"))
                #expect(r.status == 404)
                #expect(!r.isSuccess)
                #expect(String(decoding: r.body, as: UTF8.self) == "no such image")
            }
        }
    }

    @Test func requestHeadersAreSentAndConditionalGetGives304() async throws {
        try await withHTTPServer(handler: { req in
            if req.header("if-none-match") == "\"v1\"" {
                return ServerResponse(status: 304, headers: [("ETag", "\"v1\"")])
            }
            return ServerResponse(status: 200, headers: [("ETag", "\"v1\"")], body: .bytes([1, 2, 3]))
        }) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/img")
                let first = try await engine.perform(request)
                #expect(first.status == 200)
                request.headers = [HTTPHeader(name: "If-None-Match", value: first.etag ?? "")]
                let second = try await engine.perform(request)
                #expect(second.status == 304)
                #expect(second.body.isEmpty)
                #expect(second.etag == "\"v1\"")
            }
        }
    }

    @Test func acceptEncodingIsOnlySentWhenAsked() async throws {
        try await withHTTPServer(handler: { req in .text(req.header("accept-encoding") ?? "-") }) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/api")
                let plain = try await engine.perform(request)
                #expect(String(decoding: plain.body, as: UTF8.self) == "-")
                request.acceptEncoding = true
                let encoded = try await engine.perform(request)
                #expect(String(decoding: encoded.body, as: UTF8.self).contains("gzip"))
            }
        }
    }

    @Test func retryAfterAndRateLimitHeaders() async throws {
        // The date is a minute after the answer, as a server sends it (not after the test's
        // start: a busy suite can delay the request by longer than the check's margin).
        try await withHTTPServer(handler: { req in
            let value = req.path == "/date" ? httpDate(secondsFromNow: 60) : "7"
            return ServerResponse(status: 429, headers: [
                ("Retry-After", value), ("X-RateLimit-Limit", "100"), ("X-RateLimit-Reset", "30"),
            ], body: .bytes("slow down".bytes))
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/seconds"))
                #expect(r.status == 429)
                #expect(r.retryAfterSeconds == 7)
                #expect(r.header("x-ratelimit-limit") == "100")
                #expect(r.header("x-ratelimit-reset") == "30")
                let d = try await engine.perform(HTTPRequest(url: server.baseURL + "/date"))
                let seconds = try #require(d.retryAfterSeconds)
                #expect((40...70).contains(seconds))
            }
        }
    }

    @Test func allResponseHeadersOnRequest() async throws {
        try await withHTTPServer(handler: { _ in
            ServerResponse(status: 200, headers: [("X-Custom", "yes"), ("Cache-Control", "max-age=60")],
                           body: .bytes([1]))
        }) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/")
                let standard = try await engine.perform(request)
                #expect(standard.header("x-custom") == nil)
                request.allResponseHeaders = true
                let all = try await engine.perform(request)
                #expect(all.header("x-custom") == "yes")
                #expect(all.header("cache-control") == "max-age=60")
                #expect(all.header("date") != nil)
                #expect(all.headers.allSatisfy { $0.name == $0.name.lowercased() })
            }
        }
    }
}

/// An IMF-fixdate `seconds` from now, e.g. "Wed, 01 Jan 2020 00:00:00 GMT".
func httpDate(secondsFromNow seconds: Int) -> String {
    var t = time(nil) + seconds
    var parts = tm()
    gmtime_r(&t, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let n = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
