import DemoFeed
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlHTTP

/// `HTTPRequest.resolve` on a live engine. Names are under `.localhost`, which libcurl resolves
/// to loopback itself (no DNS query leaves the machine), and entries name loopback addresses.
@Suite("HTTPEngine resolve entries")
struct HTTPEngineResolveTests {
    /// `resolve` applies to its own request: a later request on the engine resolves the name as
    /// usual.
    @Test func resolveIsScopedToItsRequest() async throws {
        // Both close their connections: libcurl matches idle connections by name and port, not
        // address, so a request would otherwise be sent over the other server's connection.
        try await withHTTPServer(handler: { _ in
            ServerResponse(status: 200, headers: [("Connection", "close")], body: .bytes(Array("A".utf8)))
        }) { a in
            let b = try HTTPServer(host: "127.0.0.2", port: a.port, handler: { _ in
                ServerResponse(status: 200, headers: [("Connection", "close")], body: .bytes(Array("B".utf8)))
            })
            defer { b.stop() }
            try await HTTPEngine.withEngine { engine in
                let url = "http://scoped.localhost:\(a.port)/"
                var viaB = HTTPRequest(url: url)
                viaB.resolve = ["scoped.localhost:\(a.port):127.0.0.2"]
                let first = try await engine.perform(viaB)
                #expect(String(decoding: first.body, as: UTF8.self) == "B")
                var plain = HTTPRequest(url: url)
                plain.connectTimeoutMs = 3_000
                let second = try await engine.perform(plain)
                #expect(String(decoding: second.body, as: UTF8.self) == "A")
                let third = try await engine.perform(viaB)
                #expect(String(decoding: third.body, as: UTF8.self) == "B")
            }
            #expect(b.requestCount == 2)
            #expect(a.requestCount == 1)
        }
    }

    @Test func malformedResolveEntries() async throws {
        try await HTTPEngine.withEngine { engine in
            for entry in ["nocolon", "h.localhost:80:", "h.localhost:x:127.0.0.1", "h.localhost:80:not-an-ip"] {
                var request = HTTPRequest(url: "http://h.localhost:1/")
                request.resolve = [entry]
                let error = await catchHTTPError { try await engine.perform(request) }
                guard case .invalidRequest = error else {
                    Issue.record("\(entry): expected invalidRequest, got \(String(describing: error))")
                    continue
                }
            }
            for entry in ["", "h:80:1.2.3.4 ", "h:80:\n1.2.3.4"] {
                var request = HTTPRequest(url: "http://h.localhost:1/")
                request.resolve = [entry]
                #expect(throws: HTTPError.self) { try request.validate() }
            }
        }
    }
}
