import Glibc
import Testing
@testable import DemoFeed
import FeedCrawlKit
@testable import FeedCrawlStorage

@Suite("HTTPServer")
struct HTTPServerTests {
    /// Echoes method, path, decoded query and body length.
    static let echo: HTTPServer.Handler = { req in
        let q = req.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        return .text("\(req.method) \(req.path) [\(q)] \(req.body.count) \(req.header("X-Test") ?? "-")")
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        try await withHTTPServer(handler: Self.echo) { server in
            let c = try RawClient(port: server.port)
            for i in 1...4 {
                try c.request("GET", "/a%20b/?page=\(i)&q=red+car&x=%26", headers: ["x-TEST": "v\(i)"])
                let r = try c.readResponse()
                #expect(r.status == 200)
                #expect(r.text == "GET /a b/ [page=\(i),q=red car,x=&] 0 v\(i)")
                #expect(r.header("date") != nil)
                #expect(r.header("content-type") == "text/plain; charset=utf-8")
                #expect(r.header("connection") == nil)
            }
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 4)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withHTTPServer(handler: Self.echo) { server in
            let c = try RawClient(port: server.port)
            try c.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try c.readResponse().text.hasPrefix("GET /one "))
            #expect(try c.readResponse().text.hasPrefix("GET /two "))
        }
    }

    @Test func headSendsHeadersOnly() async throws {
        try await withHTTPServer(handler: { _ in .text("twelve bytes") }) { server in
            let c = try RawClient(port: server.port)
            try c.request("HEAD", "/h")
            let head = try c.readHead()
            #expect(head.header("content-length") == "12")
            try c.request("GET", "/h") // the connection stays in sync
            #expect(try c.readResponse().text == "twelve bytes")
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withHTTPServer(handler: Self.echo) { server in
            let c = try RawClient(port: server.port)
            try c.request("GET", "/x", headers: ["Connection": "close"])
            let r = try c.readResponse()
            #expect(r.header("connection") == "close")
            #expect(c.isClosedByPeer())
        }
    }

    @Test func postBodyIsDelivered() async throws {
        let body = (0..<70_000).map { UInt8($0 % 251) }
        try await withHTTPServer(handler: { req in .json(req.body.reversed()) }) { server in
            let c = try RawClient(port: server.port)
            try c.request("POST", "/graphql", headers: ["Content-Type": "application/json"], body: body)
            let r = try c.readResponse()
            #expect(r.body == body.reversed())
            #expect(r.header("content-type") == "application/json")
            #expect(r.header("content-length") == "70000")
        }
    }

    @Test func oversizedBodyAndHeadAreRejected() async throws {
        try await withHTTPServer(handler: Self.echo) { server in
            let c = try RawClient(port: server.port)
            try c.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n")
            #expect(try c.readResponse().status == 413)
            let d = try RawClient(port: server.port)
            try d.send("GET /p HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n")
            #expect(try d.readResponse().status == 431)
            let e = try RawClient(port: server.port)
            try e.send("NONSENSE\r\n\r\n")
            #expect(try e.readResponse().status == 400)
        }
    }

    @Test func chunkedResponseReassembles() async throws {
        let payload = Array("The quick brown fox jumps over the lazy dog".utf8)
        try await withHTTPServer(handler: { _ in .init(body: .chunked(payload, chunkSize: 5)) }) { server in
            let c = try RawClient(port: server.port)
            try c.request("GET", "/c")
            let r = try c.readResponse()
            #expect(r.header("transfer-encoding") == "chunked")
            #expect(r.header("content-length") == nil)
            #expect(r.body == payload)
            // Still usable afterwards.
            try c.request("GET", "/c")
            #expect(try c.readResponse().body == payload)
        }
    }

    @Test func truncatedAnnouncesFullLengthThenCloses() async throws {
        let payload = [UInt8](repeating: 7, count: 1000)
        try await withHTTPServer(handler: { _ in .init(body: .truncated(payload, sendBytes: 400)) }) { server in
            let c = try RawClient(port: server.port)
            try c.request("GET", "/t")
            let head = try c.readHead()
            #expect(head.header("content-length") == "1000")
            #expect(c.readToEOF().count == 400)
        }
    }

    @Test func closeDelimitedHasNoLength() async throws {
        let payload = Array("until close".utf8)
        try await withHTTPServer(handler: { _ in .init(body: .closeDelimited(payload)) }) { server in
            let c = try RawClient(port: server.port)
            try c.request("GET", "/d")
            let r = try c.readResponse()
            #expect(r.header("content-length") == nil)
            #expect(r.body == payload)
        }
    }

    @Test func dripDeliversWholeBody() async throws {
        let payload = [UInt8](repeating: 1, count: 300)
        try await withHTTPServer(handler: { _ in .init(body: .drip(payload, bytesPerSecond: 2000)) }) { server in
            let r = try RawClient.get(port: server.port, "/drip")
            #expect(r.body == payload)
        }
    }

    @Test func resetSendsNothing() async throws {
        try await withHTTPServer(handler: { _ in .init(body: .reset) }) { server in
            let c = try RawClient(port: server.port)
            try c.request("GET", "/r")
            #expect(c.readToEOF().isEmpty)
            #expect(server.requestCount == 1)
        }
    }

    @Test func stopDoesNotHangOnStalledOrEndlessResponses() async throws {
        let server = try HTTPServer { req in
            req.path == "/stall" ? .init(body: .stall) : .init(body: .endless(chunkSize: 1024))
        }
        let stalled = try RawClient(port: server.port)
        try stalled.request("GET", "/stall")
        #expect(try stalled.readHead().header("content-length") == "100000")
        let endless = try RawClient(port: server.port)
        try endless.request("GET", "/endless")
        #expect(try endless.readHead().header("transfer-encoding") == "chunked")
        let idle = try RawClient(port: server.port) // keep-alive connection waiting for a request
        // Slow handler reply: the server waits 60 s before answering unless stopped.
        let slow = try HTTPServer { _ in .init(body: .bytes([1]), delayMs: 60_000) }
        let slowClient = try RawClient(port: slow.port)
        try slowClient.request("GET", "/slow")
        usleep(100_000)
        let start = HTTPDate.now()
        server.stop()
        slow.stop()
        server.stop() // idempotent
        #expect(HTTPDate.now() - start <= 3)
        // Every connection was closed by the server.
        _ = stalled.readToEOF()
        #expect(idle.isClosedByPeer())
        #expect(slowClient.readToEOF().isEmpty)
    }

    @Test func stopClosesListener() async throws {
        let server = try HTTPServer(handler: Self.echo)
        let port = server.port
        #expect(try RawClient.get(port: port, "/").status == 200)
        server.stop()
        #expect(throws: (any Error).self) { _ = try RawClient(port: port) }
    }

    @Test func targetSplittingDecodes() {
        let (path, query) = RequestParser.splitTarget("/img/a%2Fb.jpg?k=a%3Db&k=last&empty&sp=x+y%20z")
        #expect(path == "/img/a/b.jpg")
        #expect(query == ["k": "last", "empty": "", "sp": "x y z"])
    }

    @Test func httpDateFormatsIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ObjectLease.httpDate(HTTPDate.format(1_577_836_800)) == 1_577_836_800)
    }
}
