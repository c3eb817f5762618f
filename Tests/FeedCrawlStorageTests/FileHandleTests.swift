import FeedCrawlSupport
import Testing

@testable import FeedCrawlStorage

/// The names a backend takes: every kind's folder, the shapes allowed, what a listing's path
/// classifies as.
@Suite struct FileHandleTests {
    @Test func namesAreCheckedWithoutABackend() async throws {
        try await BackendConformance.namesAreChecked()
    }

    @Test func pathsAndClassificationRoundTrip() throws {
        let key = SHA256.hex("https://example.org/a.jpg")
        let cases: [(FileKind, String, String)] = [
            (.image, key + ".jpg", "cache/" + key.prefix(2) + "/" + key + ".jpg"),
            (.archive, "segments/x.ndjson", "archive/segments/x.ndjson"),
            (.page, "pixabay/y.json", "pages/pixabay/y.json"),
            (.state, "manifest.json", "manifest.json"),
            (.state, "shards/4/1/manifest.json", "shards/4/1/manifest.json"),
            (.sheet, "index-12.html", "index-12.html"),
            (.lock, ".lock", ".lock"),
            (.lock, "shards/4/1/.lock", "shards/4/1/.lock"),
            (.lock, "locks/0123456789abcdef", "locks/0123456789abcdef"),
        ]
        for (kind, name, path) in cases {
            let handle = try #require(FileHandle(kind, name))
            #expect(handle.path == path)
            #expect(FileHandle.classify(path) == handle, "\(path)")
        }
        let staged = try #require(FileHandle.classify("cache/" + key.prefix(2) + "/" + key + ".0123456789ab.part"))
        #expect(staged.kind == .image && staged.isPartial)
        let stagedSegment = try #require(FileHandle.classify("archive/journal/r-1.ndjson.0123456789ab.part"))
        #expect(stagedSegment.kind == .archive && stagedSegment.isPartial)
        #expect(FileHandle.classify("cache/zz/notes.txt") == nil)
        #expect(FileHandle.classify("cache/ab/" + key + ".jpg") == nil, "a key in the wrong fan-out folder")
    }
}
