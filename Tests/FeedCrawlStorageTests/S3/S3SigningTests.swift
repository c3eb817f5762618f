import Foundation
import Testing
import FeedCrawlHTTP
import FeedCrawlSupport
@testable import FeedCrawlStorage

/// How the S3 store signs what it sends, against the loopback server (moved from the kit's S3
/// client tests: what the store's requests carry, whatever the store answers).
@Suite("S3 request signing")
struct S3SigningTests {
    /// SigV4 as AWS checks it: every request, with a body or not, carries a signed
    /// `x-amz-content-sha256` (moto's server with authentication on refuses reads without it):
    /// a save's is its body's SHA-256, every other request's the empty body's.
    @Test func everyRequestCarriesASignedPayloadHash() async throws {
        let server = try LoopbackStore { request in
            if request.method == "GET" {  // an object or a listing: this body serves both
                return .answer(200, [("Content-Type", "application/xml")], Array(
                    "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8))
            }
            if request.method == "HEAD" {
                return .answer(200, [("Content-Length", "5"), ("ETag", "\"e\"")], [])
            }
            return .answer(200, [("ETag", "\"e\"")], [])
        }
        defer { server.stop() }
        let backend = try S3BackendAnswerTests.backend(server)
        let handle = try #require(FileHandle(.state, "manifest.json"))
        try await backend.save(handle, bytes: Array("hello".utf8), options: SaveOptions())
        _ = try await backend.load(handle, range: nil, maxBytes: 1 << 20)
        _ = try await backend.stat(handle)
        try await backend.list(.state, prefix: "") { _ in }
        try await backend.remove(handle)
        let requests = server.requests
        #expect(requests.map(\.method) == ["PUT", "GET", "HEAD", "GET", "DELETE"])
        for (index, request) in requests.enumerated() {
            let expected = index == 0 ? "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
                : S3Client.emptyPayloadHash
            #expect(request.header("x-amz-content-sha256") == expected, "\(request.method)")
            #expect(request.header("authorization")?.contains("x-amz-content-sha256") == true,
                    "\(request.header("authorization") ?? "")")
        }
    }
}
