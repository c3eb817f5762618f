import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

@Suite("HTTPEngine failures")
struct HTTPEngineFailureTests {
    static let body = patternBytes(100_000, seed: 7)

    /// Paths pick the fault: /stall, /chunked, /endless, /big, /truncated, /reset, /close, /exact.
    static let handler: HTTPServer.Handler = { req in
        switch req.path {
        case "/stall": return ServerResponse(body: .stall)
        case "/chunked": return ServerResponse(body: .chunked(body, chunkSize: 4096))
        case "/endless": return ServerResponse(body: .endless(chunkSize: 8192))
        case "/big": return ServerResponse(body: .bytes(body))
        case "/truncated": return ServerResponse(body: .truncated(Array(body[0..<5000]), sendBytes: 1000))
        case "/reset": return ServerResponse(body: .reset)
        case "/close": return ServerResponse(body: .closeDelimited(body))
        default: return .text("not found", status: 404)
        }
    }

    // The two timeouts are told apart without a stopwatch: each test turns the other limit off
    // and the body stalls for ever, so `.timedOut` can only be the limit under test. (A bound on
    // the test's own clock measured the cooperative pool's queue as much as curl: with the whole
    // suite on 2 cores a resumption has waited 35 s.) A limit that never fires hangs the test
    // until its time limit fails it.
    @Test(.timeLimit(.minutes(2))) func lowSpeedTimeoutOnAStalledBody() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/stall")
                request.lowSpeedLimit = 100
                request.lowSpeedTimeSeconds = 1
                request.totalTimeoutMs = nil
                let error = await catchHTTPError { try await engine.perform(request) }
                guard case .timedOut = error else {
                    Issue.record("expected timedOut, got \(String(describing: error))")
                    return
                }
                #expect(error?.isTransient == true)
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func totalTimeout() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/stall")
                request.lowSpeedLimit = 0  // off: only the total timeout can end the stall
                request.totalTimeoutMs = 300
                let error = await catchHTTPError { try await engine.perform(request) }
                guard case .timedOut = error else {
                    Issue.record("expected timedOut, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test(arguments: ["/chunked", "/endless", "/big", "/close"])
    func bodyCapIsEnforced(path: String) async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + path)
                request.maxBytes = 50_000
                request.totalTimeoutMs = 20_000  // a missing cap fails instead of hanging
                await expectHTTPError(.bodyTooLarge(limit: 50_000)) { try await engine.perform(request) }
            }
        }
    }

    @Test(arguments: ["/chunked", "/big", "/close"])
    func bodyExactlyAtTheCapIsAccepted(path: String) async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + path)
                request.maxBytes = Int64(Self.body.count)
                let r = try await engine.perform(request)
                #expect(r.body == Self.body)
            }
        }
    }

    @Test func truncatedBodyIsPartial() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                await expectHTTPError(.partialBody(received: 1000, expected: 5000)) {
                    try await engine.perform(HTTPRequest(url: server.baseURL + "/truncated"))
                }
            }
        }
    }

    @Test func resetBeforeResponseIsAConnectionFailure() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let error = await catchHTTPError {
                    try await engine.perform(HTTPRequest(url: server.baseURL + "/reset"))
                }
                guard case .connectionFailed = error else {
                    Issue.record("expected connectionFailed, got \(String(describing: error))")
                    return
                }
                #expect(error?.isTransient == true)
            }
        }
    }

    @Test func refusedConnection() async throws {
        let server = try HTTPServer(handler: Self.handler)
        let url = server.baseURL + "/gone"
        server.stop()
        try await HTTPEngine.withEngine { engine in
            let error = await catchHTTPError { try await engine.perform(HTTPRequest(url: url)) }
            guard case .connectionFailed = error else {
                Issue.record("expected connectionFailed, got \(String(describing: error))")
                return
            }
        }
    }

    /// The plain server waits for a request head that a TLS ClientHello never completes, so the
    /// handshake runs into the connect timeout.
    /// Without the timeout curl would wait 300 s: the time limit fails the test long before.
    @Test(.timeLimit(.minutes(2))) func tlsHandshakeIsBoundByTheConnectTimeout() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: "https://127.0.0.1:\(server.port)/big")
                request.connectTimeoutMs = 300
                let error = await catchHTTPError { try await engine.perform(request) }
                guard case .timedOut = error else {
                    Issue.record("expected timedOut, got \(String(describing: error))")
                    return
                }
            }
        }
    }

    @Test(arguments: ["not a url", "http://", "http:///path", "127.0.0.1/x", "http//x", "", "http://a b/"])
    func malformedURLsAreInvalid(url: String) async throws {
        try await HTTPEngine.withEngine { engine in
            let error = await catchHTTPError { try await engine.perform(HTTPRequest(url: url)) }
            guard case .invalidURL = error else {
                Issue.record("expected invalidURL, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func headerInjectionIsRejected() async throws {
        try await HTTPEngine.withEngine { engine in
            let bad = HTTPRequest(url: "http://127.0.0.1:1/",
                                  headers: [HTTPHeader(name: "X-A", value: "1\r\nX-Injected: 2")])
            let error = await catchHTTPError { try await engine.perform(bad) }
            guard case .invalidRequest = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                return
            }
        }
    }
}
