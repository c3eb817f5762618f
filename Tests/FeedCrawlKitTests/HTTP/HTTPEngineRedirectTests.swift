import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

@Suite("HTTPEngine redirects and schemes")
struct HTTPEngineRedirectTests {
    /// `/hop/N` redirects to `/hop/N-1`; `/hop/0` answers "landed"; `/loop` redirects to itself;
    /// `/to?u=URL` redirects to URL.
    static let handler: HTTPServer.Handler = { req in
        if req.path.hasPrefix("/hop/"), let n = Int(req.path.dropFirst(5)) {
            if n == 0 { return .text("landed") }
            return ServerResponse(status: 302, headers: [("Location", "/hop/\(n - 1)")])
        }
        if req.path == "/loop" {
            return ServerResponse(status: 301, headers: [("Location", "/loop")])
        }
        if req.path == "/to", let target = req.query["u"] {
            return ServerResponse(status: 302, headers: [("Location", target)], body: .bytes("moved".bytes))
        }
        return .text("not found", status: 404)
    }

    @Test func redirectChainIsFollowed() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/hop/3"))
                #expect(r.status == 200)
                #expect(String(decoding: r.body, as: UTF8.self) == "landed")
                #expect(r.redirectCount == 3)
                #expect(r.effectiveURL == server.baseURL + "/hop/0")
                let five = try await engine.perform(HTTPRequest(url: server.baseURL + "/hop/5"))
                #expect(five.status == 200)
                #expect(five.redirectCount == 5)
            }
        }
    }

    @Test func tooManyRedirects() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                await expectHTTPError(.tooManyRedirects) {
                    try await engine.perform(HTTPRequest(url: server.baseURL + "/hop/6"))
                }
                await expectHTTPError(.tooManyRedirects) {
                    try await engine.perform(HTTPRequest(url: server.baseURL + "/loop"))
                }
            }
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "FILE:///etc/hostname", "gopher://h/",
                      "dict://127.0.0.1/", "file:/etc/passwd"])
    func disallowedSchemesAreRejectedBeforeCurl(url: String) async throws {
        try await HTTPEngine.withEngine { engine in
            let error = await catchHTTPError { try await engine.perform(HTTPRequest(url: url)) }
            guard case .unsupportedScheme = error else {
                Issue.record("expected unsupportedScheme, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1:1/x", "scp://127.0.0.1/x"])
    func redirectToDisallowedSchemeFailsWithoutData(target: String) async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let tmp = try TempDir()
                defer { tmp.remove() }
                let url = server.baseURL + "/to?u=" + percentEncoded(target)
                let error = await catchHTTPError { try await engine.perform(HTTPRequest(url: url)) }
                guard case .unsupportedScheme = error else {
                    Issue.record("expected unsupportedScheme, got \(String(describing: error))")
                    return
                }
                // The same into a sink: none may be made.
                let path = tmp.file("out")
                _ = await catchHTTPError {
                    try await engine.perform(HTTPRequest(url: url, destination: FileSink.destination(path)))
                }
                #expect(!fileExists(path))
            }
            #expect(server.requestCount == 2)
        }
    }

    @Test func redirectPostBecomesGet() async throws {
        let seen = Locked<[String]>([])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0.append("\(req.method) \(req.path)") }
            if req.path == "/form" { return ServerResponse(status: 303, headers: [("Location", "/done")]) }
            return .text("ok")
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/form", method: .post, body: [1]))
                #expect(r.status == 200)
            }
        }
        #expect(seen.withLock { $0 } == ["POST /form", "GET /done"])
    }
}

func percentEncoded(_ s: String) -> String {
    var out = ""
    for byte in s.utf8 {
        let c = Character(Unicode.Scalar(byte))
        if c.isLetter || c.isNumber || c == "-" || c == "." || c == "_" {
            out.append(c)
        } else {
            let hex = String(byte, radix: 16, uppercase: true)
            out += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return out
}
