import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit

@Suite("HTTPEngine file destination relative to a FileDirectory")
struct HTTPEngineFileDirectoryTests {
    static let body = patternBytes(120_000, seed: 5)

    static let handler: HTTPServer.Handler = { req in
        switch req.path {
        case "/img": return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(body))
        case "/empty": return ServerResponse(status: 200)
        case "/truncated": return ServerResponse(body: .truncated(body, sendBytes: 50_000))
        default: return .text("?", status: 400)
        }
    }

    /// A request for `path` streamed into `name`, resolved against `directory`.
    static func request(_ url: String, _ name: String, in directory: FileDirectory) -> HTTPRequest {
        var request = HTTPRequest(url: url, destination: .file(path: name))
        request.fileDirectory = directory
        request.fsync = true
        return request
    }

    @Test func bodiesLandUnderTheDirectoryNotTheWorkingDirectory() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        #expect(mkdir(tmp.file("sub"), 0o755) == 0)
        let directory = try FileDirectory(path: tmp.path)
        // "sub/" exists only under tmp: resolved against the working directory, this would fail.
        #expect(!fileExists("sub"))
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let r = try await engine.perform(Self.request(server.baseURL + "/img", "sub/a.png", in: directory))
                #expect(r.status == 200)
                #expect(readFile(tmp.file("sub/a.png")) == Self.body)
                // No body byte: the file is made when the transfer is finished.
                _ = try await engine.perform(Self.request(server.baseURL + "/empty", "sub/e", in: directory))
                #expect(readFile(tmp.file("sub/e")) == [])
            }
        }
    }

    @Test func theOpenDirectoryIsUsedNotItsPath() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        #expect(mkdir(tmp.file("before"), 0o755) == 0)
        let directory = try FileDirectory(path: tmp.file("before"))
        // The directory moves after it was opened: the descriptor follows it, a path would not.
        #expect(rename(tmp.file("before"), tmp.file("after")) == 0)
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                _ = try await engine.perform(Self.request(server.baseURL + "/img", "a", in: directory))
            }
        }
        #expect(readFile(tmp.file("after/a")) == Self.body)
        #expect(directory.absolutePath("a") == tmp.file("before/a"))
        #expect(directory.absolutePath("/x/y") == "/x/y")
    }

    @Test func failuresUnlinkUnderTheDirectoryAndNameTheWholePath() async throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        let directory = try FileDirectory(path: tmp.path)
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                await expectHTTPError(.partialBody(received: 50_000, expected: Int64(Self.body.count))) {
                    try await engine.perform(Self.request(server.baseURL + "/truncated", "t", in: directory))
                }
                #expect(tmp.entries().isEmpty)
                for path in ["/img", "/empty"] {
                    await expectHTTPError(.file(path: tmp.file("no-such-dir/x"), errno: ENOENT)) {
                        try await engine.perform(Self.request(server.baseURL + path, "no-such-dir/x", in: directory))
                    }
                }
            }
        }
        #expect(tmp.entries().isEmpty)
    }

    @Test func onlyDirectoriesOpen() throws {
        let tmp = try TempDir()
        defer { tmp.remove() }
        writeFile(tmp.file("plain"), [1])
        #expect(throws: FileSystemError.self) { try FileDirectory(path: tmp.file("plain")) }
        #expect(throws: FileSystemError.self) { try FileDirectory(path: tmp.file("missing")) }
    }
}
