import FeedCrawlHTTP
import FeedCrawlStorage
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// The sheet written to a bucket (a real SeaweedFS on loopback) by the same code that writes a
/// folder: the same pages, served as HTML, and a second write saves `index.html` alone.
@Suite("Contact sheet in object storage", .seaweedFS, .serialized)
struct ContactSheetObjectStoreTests {
    @Test func theSheetGoesToABucketAsToAFolder() async throws {
        let server = try #require(SeaweedServer.current)
        let location = try #require(try Backends.objectStoreLocation("s3://\(server.bucket)/sheet-\(UInt32.random(in: 0...UInt32.max))"))
        let s3 = try Backends.s3(location: location, configuration: try server.configuration(), network: HTTPEngine.Configuration())
        let backend = SheetTestBackend(s3)
        let manifest = ContactSheetPagesTests.manifest(60)
        let repository = try await SheetFixture.archive(manifest, in: s3)
        // A page an earlier sheet left.
        let stale = try #require(FileHandle(.sheet, "index-pixabay-p99.html"))
        try await s3.save(stale, bytes: Array("old".utf8), options: SaveOptions())
        let written = try await SheetFixture.write(repository, run: manifest.run, backend: backend, pageItems: 7)
        let expected = SheetFixture.expected(manifest, pageItems: 7)
        #expect(try await SheetFixture.pages(s3) == expected)
        #expect(written.removed == ["index-pixabay-p99.html"])
        #expect(backend.saved.last == "index.html")
        let handle = try #require(FileHandle(.sheet, "index-pixabay-p2.html"))
        let page = try #require(try await s3.stat(handle))
        #expect(page.size == Int64(expected["index-pixabay-p2.html"]?.utf8.count ?? 0))

        backend.reset()
        let again = try await SheetFixture.write(repository, run: manifest.run, backend: backend, pageItems: 7)
        #expect(again.rendered == 0)
        #expect(backend.saved == ["index.html"])
        #expect(backend.removed.isEmpty)
    }
}
