import DemoFeed
import Testing
@testable import FeedCrawlKit

@Suite("HTTPEngine body digest")
struct HTTPEngineDigestTests {
    static let body = patternBytes(300_000, seed: 11)
    static let small = patternBytes(5_000, seed: 12)

    static let handler: HTTPServer.Handler = { req in
        switch req.path {
        case "/big": return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(body))
        case "/chunked": return ServerResponse(body: .chunked(body, chunkSize: 7_001))
        case "/small": return ServerResponse(body: .bytes(small))
        case "/empty": return ServerResponse(status: 200)
        case "/missing": return .text("gone", status: 404)
        default: return .text("?", status: 400)
        }
    }

    private func fetch(_ path: String, digest: Bool = true) async throws -> (HTTPResponse, [UInt8]?) {
        let tmp = try TempDir()
        defer { tmp.remove() }
        return try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + path, destination: .file(path: tmp.file("f")))
                request.digestBody = digest
                let response = try await engine.perform(request)
                return (response, readFile(tmp.file("f")))
            }
        }
    }

    @Test(arguments: ["/big", "/chunked", "/small"])
    func digestIsTheHashOfTheFileWritten(path: String) async throws {
        let (response, file) = try await fetch(path)
        let written = try #require(file)
        let digest = try #require(response.bodyDigest)
        #expect(digest.sha256 == SHA256.hex(written))
        #expect(digest.head == Array(written.prefix(BodyDigest.headLimit)))
        #expect(response.bytesReceived == Int64(written.count))
    }

    @Test func emptyBodyHasTheEmptyDigest() async throws {
        let (response, _) = try await fetch("/empty")
        let digest = try #require(response.bodyDigest)
        #expect(digest.sha256 == SHA256.hex([UInt8]()))
        #expect(digest.head.isEmpty)
    }

    @Test func noDigestUnlessAskedOrForErrors() async throws {
        let (plain, _) = try await fetch("/small", digest: false)
        #expect(plain.bodyDigest == nil)
        let (missing, file) = try await fetch("/missing")
        #expect(missing.status == 404)
        #expect(missing.bodyDigest == nil)
        #expect(file == nil)
    }
}
