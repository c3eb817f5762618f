import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

@Suite("HTTPEngine cancellation, reuse, shutdown")
struct HTTPEngineLifecycleTests {
    /// `/stall` never finishes its body; `/wait` answers after 300 ms; `/n/K` answers "K".
    static let handler: HTTPServer.Handler = { req in
        if req.path == "/stall" { return ServerResponse(body: .stall) }
        if req.path == "/wait" { return ServerResponse(body: .bytes(patternBytes(5000)), delayMs: 300) }
        if req.path.hasPrefix("/n/") { return .text(String(req.path.dropFirst(3))) }
        return .text("?", status: 404)
    }

    /// The stalled response never ends: only the cancel ends it (a hang runs into the time limit).
    @Test(.timeLimit(.minutes(2))) func cancellingOneTransferLeavesTheOthersAlone() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let stalled = Task { try await engine.perform(HTTPRequest(url: server.baseURL + "/stall")) }
                let others = (0..<10).map { _ in
                    Task { try await engine.perform(HTTPRequest(url: server.baseURL + "/wait")) }
                }
                let reached = await waitUntil { server.requestCount >= 11 }
                #expect(reached)
                stalled.cancel()
                let result = await stalled.result
                guard case .failure(let error) = result, error is CancellationError else {
                    Issue.record("expected CancellationError, got \(result)")
                    return
                }
                for task in others {
                    let r = try await task.value
                    #expect(r.status == 200)
                    #expect(r.body == patternBytes(5000))
                }
            }
        }
    }

    @Test func cancellingHalfOfManyTransfers() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let tasks = (0..<40).map { _ in
                    Task { try await engine.perform(HTTPRequest(url: server.baseURL + "/wait")) }
                }
                #expect(await waitUntil { server.requestCount >= 20 })
                for (i, task) in tasks.enumerated() where i % 2 == 0 { task.cancel() }
                var cancelled = 0, succeeded = 0
                for (i, task) in tasks.enumerated() {
                    switch await task.result {
                    case .success(let r):
                        #expect(r.body == patternBytes(5000))
                        succeeded += 1
                    case .failure(let error):
                        #expect(error is CancellationError)
                        #expect(i % 2 == 0)
                        cancelled += 1
                    }
                }
                #expect(succeeded >= 20)
                #expect(cancelled + succeeded == 40)
                let after = try await engine.perform(HTTPRequest(url: server.baseURL + "/n/7"))
                #expect(after.body == "7".bytes)
            }
        }
    }

    @Test func alreadyCancelledTaskThrowsAtOnce() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await engine.perform(HTTPRequest(url: server.baseURL + "/n/1"))
                }
                let result = await task.result
                guard case .failure(let error) = result, error is CancellationError else {
                    Issue.record("expected CancellationError, got \(result)")
                    return
                }
                // The engine still works afterwards.
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/n/2"))
                #expect(r.body == "2".bytes)
            }
            #expect(server.requestCount == 1)
        }
    }

    @Test func sequentialRequestsReuseTheConnection() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                for i in 0..<50 {
                    let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/n/\(i)"))
                    #expect(r.body == "\(i)".bytes)
                }
                #expect(engine.connectionsOpened >= 1)
                #expect(engine.connectionsOpened <= 2)
            }
            #expect(server.connectionCount <= 2)
        }
    }

    @Test func manyConcurrentTransfersAllComplete() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine(configuration: .init(maxConcurrentTransfers: 16)) { engine in
                try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
                    var next = 0
                    func add() {
                        let i = next
                        next += 1
                        group.addTask { (i, try await engine.perform(HTTPRequest(url: server.baseURL + "/n/\(i)")).body) }
                    }
                    for _ in 0..<16 { add() }
                    var done = 0
                    while let (i, body) = try await group.next() {
                        #expect(body == "\(i)".bytes)
                        done += 1
                        if next < 200 { add() }
                    }
                    #expect(done == 200)
                }
                #expect(engine.connectionsOpened <= 32)
            }
        }
    }

    /// A hang would never end: the time limit fails it.
    @Test(.timeLimit(.minutes(2))) func shutdownWithTransfersInFlightDoesNotHang() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            let engine = try HTTPEngine()
            let tasks = (0..<5).map { _ in
                Task { try await engine.perform(HTTPRequest(url: server.baseURL + "/stall")) }
            }
            #expect(await waitUntil { server.requestCount >= 5 })
            engine.shutdown()
            for task in tasks {
                let result = await task.result
                guard case .failure(let error) = result, error is CancellationError else {
                    Issue.record("expected CancellationError, got \(result)")
                    continue
                }
            }
            engine.shutdown()
            await expectHTTPError(.engineShutDown) {
                try await engine.perform(HTTPRequest(url: server.baseURL + "/n/1"))
            }
        }
    }

    @Test func withEngineShutsDownWhenTheBodyThrows() async throws {
        struct Boom: Error {}
        var kept: HTTPEngine?
        do {
            try await HTTPEngine.withEngine { engine in
                kept = engine
                throw Boom()
            }
            Issue.record("withEngine swallowed the error")
        } catch is Boom {
        }
        let engine = try #require(kept)
        await expectHTTPError(.engineShutDown) {
            try await engine.perform(HTTPRequest(url: "http://127.0.0.1:1/"))
        }
    }

    @Test func engineDeinitStopsTheLoop() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            for i in 0..<20 {
                var engine: HTTPEngine? = try HTTPEngine()
                let r = try await engine?.perform(HTTPRequest(url: server.baseURL + "/n/\(i)"))
                #expect(r?.status == 200)
                engine = nil
                _ = engine
            }
        }
    }
}
