import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

/// `HTTPEngine.start(_:completion:)`, the engine's one execution path (the image pipeline
/// calls it directly; `perform` is a thin layer over it): one completion per transfer, on the
/// engine's thread, with the 2xx body's sink handed back for the caller to finish.
@Suite("HTTPEngine start")
struct HTTPEngineStartTests {
    static let body = patternBytes(200_000, seed: 5)

    static let handler: HTTPServer.Handler = { request in
        switch request.path {
        case "/img": return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(body))
        case "/missing": return .text("no such image", status: 404)
        // Minutes at this rate: the cancel always lands first, however late the test resumes.
        case "/drip": return ServerResponse(body: .drip(body, bytesPerSecond: 2_000))
        default: return .text("?", status: 400)
        }
    }

    /// Collects completions: how many, on which thread, with what.
    final class Completions: @unchecked Sendable {
        private let results = Locked<[(thread: String, result: Result<CompletedTransfer, any Error>)]>([])

        var handler: @Sendable (Result<CompletedTransfer, any Error>) -> Void {
            { [results] result in
                let comm = readFile("/proc/thread-self/comm") ?? []
                let thread = String(decoding: comm.prefix { $0 != 0x0A }, as: UTF8.self)
                results.withLock { $0.append((thread, result)) }
            }
        }

        var all: [(thread: String, result: Result<CompletedTransfer, any Error>)] { results.withLock { $0 } }
    }

    @Test func theSinkIsHandedBackForTheCallerToFinish() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let completions = Completions()
                let request = HTTPRequest(url: server.baseURL + "/img", destination: FileSink.destination(tmp.file("a.part")))
                _ = try engine.start(request, completion: completions.handler)
                #expect(await waitUntil { !completions.all.isEmpty })
                let all = completions.all
                #expect(all.count == 1)
                #expect(all.first?.thread == "curl-loop")
                let completed = try #require(try all.first?.result.get())
                #expect(completed.response.status == 200)
                #expect(completed.response.bytesReceived == Int64(Self.body.count))
                let sink = try #require(completed.sink as? FileSink)
                #expect(sink.path == tmp.file("a.part"))
                sink.close()
                #expect(readFile(tmp.file("a.part")) == Self.body)
            }
        }
    }

    @Test func anErrorStatusMakesNoSink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let completions = Completions()
                _ = try engine.start(
                    HTTPRequest(url: server.baseURL + "/missing", destination: FileSink.destination(tmp.file("m"))),
                    completion: completions.handler)
                #expect(await waitUntil { !completions.all.isEmpty })
                let completed = try #require(try completions.all.first?.result.get())
                #expect(completed.response.status == 404)
                #expect(completed.sink == nil)
                #expect(!fileExists(tmp.file("m")))
            }
        }
    }

    @Test func cancellingCompletesOnceWithCancellationAndDiscardsTheSink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        let path = tmp.file("d")
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let completions = Completions()
                let handle = try engine.start(
                    HTTPRequest(url: server.baseURL + "/drip", destination: FileSink.destination(path)),
                    completion: completions.handler)
                #expect(await waitUntil { fileExists(path) })
                engine.cancel(handle)
                #expect(await waitUntil { !completions.all.isEmpty })
                engine.cancel(handle)  // a second cancel, after the end, changes nothing
                // Another transfer on the same engine still completes after both cancels.
                let after = try await engine.perform(HTTPRequest(url: server.baseURL + "/img"))
                #expect(after.body == Self.body)
                let all = completions.all
                #expect(all.count == 1)
                guard case .failure(let error)? = all.first?.result, error is CancellationError else {
                    Issue.record("expected CancellationError, got \(String(describing: all.first?.result))")
                    return
                }
                #expect(!fileExists(path))
            }
        }
    }

    @Test func anInvalidRequestThrowsAndStartsNothing() async throws {
        try await HTTPEngine.withEngine { engine in
            let completions = Completions()
            #expect(throws: HTTPError.self) {
                _ = try engine.start(HTTPRequest(url: "ftp://127.0.0.1/x"), completion: completions.handler)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(completions.all.isEmpty)
        }
    }

    @Test func onAShutDownEngineTheCompletionRunsAtOnceOnTheCaller() throws {
        let engine = try HTTPEngine()
        engine.shutdown()
        let completions = Completions()
        _ = try engine.start(HTTPRequest(url: "http://127.0.0.1:9/x"), completion: completions.handler)
        let all = completions.all
        #expect(all.count == 1)
        #expect(all.first?.thread != "curl-loop")
        guard case .failure(let error as HTTPError)? = all.first?.result else {
            Issue.record("expected HTTPError.engineShutDown, got \(String(describing: all.first?.result))")
            return
        }
        #expect(error == .engineShutDown)
    }
}
