import Testing

@testable import FeedCrawlStorage

/// How an object store serves each kind of file (moved from the kit's S3 cache store tests,
/// which named an image's type by its extension).
@Suite struct FileKindTests {
    @Test func contentTypesComeFromTheKindAndTheName() {
        let key = String(repeating: "ab", count: 32)
        #expect(FileKind.image.contentType(key + ".jpg") == "image/jpeg")
        #expect(FileKind.image.contentType(key + ".webp") == "image/webp")
        #expect(FileKind.image.contentType(key + ".png") == "image/png")
        #expect(FileKind.image.contentType(key + ".gif") == "image/gif")
        #expect(FileKind.image.contentType(key) == "application/octet-stream")
        #expect(FileKind.sheet.contentType("index.html") == "text/html; charset=utf-8")
        #expect(FileKind.archive.contentType("journal/r-1.ndjson") == "application/x-ndjson")
        #expect(FileKind.archive.contentType("roots/00000000000000000001.json") == "application/json")
        #expect(FileKind.archive.contentType("tables/x.groups") == "application/octet-stream")
        #expect(FileKind.state.contentType("manifest.json") == "application/json")
        #expect(FileKind.page.contentType("pixabay/x.json") == "application/json")
        #expect(FileKind.lock.contentType(".lock") == "text/plain; charset=utf-8")
    }

    @Test func onlyArchiveFilesAreImmutableAndImagesKeepADay() {
        #expect(FileKind.image.cacheControl == "public, max-age=86400")
        #expect(FileKind.archive.cacheControl == "public, max-age=31536000, immutable")
        for kind in [FileKind.state, .page, .sheet, .lock] { #expect(kind.cacheControl == "no-cache") }
    }
}
