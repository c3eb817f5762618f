import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

/// The sink destination, with a test sink writing to a file (`FileSink`).
@Suite("HTTPEngine sink destination")
struct HTTPEngineSinkTests {
    static let body = patternBytes(300_000, seed: 3)

    static let handler: HTTPServer.Handler = { req in
        switch req.path {
        case "/img": return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(body))
        case "/chunked": return ServerResponse(body: .chunked(body, chunkSize: 10_000))
        case "/empty": return ServerResponse(status: 200)
        case "/missing": return .text(String(repeating: "e", count: 10_000), status: 404)
        case "/cached": return ServerResponse(status: 304, headers: [("ETag", "\"x\"")])
        case "/truncated": return ServerResponse(body: .truncated(body, sendBytes: 100_000))
        // Minutes at this rate: the cancel always lands first, however late the test resumes.
        case "/drip": return ServerResponse(body: .drip(body, bytesPerSecond: 2_000))
        default: return .text("?", status: 400)
        }
    }

    @Test(arguments: ["/img", "/chunked"])
    func bodyIsStreamedIntoTheSink(path: String) async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let request = HTTPRequest(url: server.baseURL + path, destination: FileSink.destination(tmp.file("a.png")))
                let r = try await engine.perform(request)
                #expect(r.status == 200)
                #expect(r.body.isEmpty)
                #expect(r.bytesReceived == Int64(Self.body.count))
                #expect(readFile(tmp.file("a.png")) == Self.body)
            }
        }
    }

    @Test func emptyBodyMakesAnEmptySink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/empty",
                                                             destination: FileSink.destination(tmp.file("e"))))
                #expect(r.status == 200)
                #expect(readFile(tmp.file("e")) == [])
            }
        }
    }

    @Test func non2xxKeepsAnExcerptAndMakesNoSink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/missing",
                                                             destination: FileSink.destination(tmp.file("m"))))
                #expect(r.status == 404)
                #expect(r.body.count == 4096)
                #expect(r.body.allSatisfy { $0 == UInt8(ascii: "e") })
                #expect(r.bytesReceived == 10_000)
                #expect(!fileExists(tmp.file("m")))
            }
        }
    }

    @Test func notModifiedMakesNoSink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        writeFile(tmp.file("c"), [9, 9, 9])
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(HTTPRequest(url: server.baseURL + "/cached",
                                                             destination: FileSink.destination(tmp.file("c"))))
                #expect(r.status == 304)
                #expect(readFile(tmp.file("c")) == [9, 9, 9])
            }
        }
    }

    @Test func failedTransfersDiscardTheSink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                await expectHTTPError(.partialBody(received: 100_000, expected: Int64(Self.body.count))) {
                    try await engine.perform(HTTPRequest(url: server.baseURL + "/truncated",
                                                         destination: FileSink.destination(tmp.file("t"))))
                }
                var capped = HTTPRequest(url: server.baseURL + "/chunked", destination: FileSink.destination(tmp.file("c")))
                capped.maxBytes = 50_000
                await expectHTTPError(.bodyTooLarge(limit: 50_000)) { try await engine.perform(capped) }
            }
        }
        #expect(tmp.entries().isEmpty)
    }

    /// A factory's or a sink's error fails the transfer with that very error.
    @Test func theSinksErrorIsTheTransfersError() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        let path = tmp.file("no-such-dir/x")
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                for url in ["/img", "/empty"] {
                    do {
                        _ = try await engine.perform(HTTPRequest(url: server.baseURL + url, destination: FileSink.destination(path)))
                        Issue.record("expected the factory's error")
                    } catch let error as FileSystemError {
                        #expect(error == FileSystemError("open", path: path, code: ENOENT))
                    }
                }
                // A sink that fails on its second chunk: discarded, its error thrown.
                let failing = FailingSink()
                do {
                    _ = try await engine.perform(HTTPRequest(url: server.baseURL + "/chunked", destination: .sink { failing }))
                    Issue.record("expected the sink's error")
                } catch let error as FileSystemError {
                    #expect(error == FileSystemError("write", path: "sink", code: ENOSPC))
                }
                #expect(failing.writes.withLock { $0 } == 2)
                #expect(failing.discarded.withLock { $0 })
            }
        }
    }

    /// Takes one chunk, then fails with ENOSPC.
    final class FailingSink: BodySink {
        let writes = Locked(0)
        let discarded = Locked(false)

        func write(_ chunk: UnsafeRawBufferPointer) throws {
            let count = writes.withLock { n -> Int in
                n += 1
                return n
            }
            if count > 1 { throw FileSystemError("write", path: "sink", code: ENOSPC) }
        }

        func discard() { discarded.withLock { $0 = true } }
    }

    @Test func cancellationMidBodyDiscardsTheSink() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        let path = tmp.file("d")
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let task = Task {
                    try await engine.perform(HTTPRequest(url: server.baseURL + "/drip", destination: FileSink.destination(path)))
                }
                // The file appears once the first body bytes arrived.
                #expect(await waitUntil { fileExists(path) })
                task.cancel()
                let result = await task.result
                guard case .failure(let error) = result, error is CancellationError else {
                    Issue.record("expected CancellationError, got \(result)")
                    return
                }
                #expect(!fileExists(path))
            }
        }
    }
}
