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
            (.sheet, "index-pixabay-p3.html", "index-pixabay-p3.html"),
            (.sheet, "index-a-p3-p1-2.html", "index-a-p3-p1-2.html"),
            (.state, ".sheet.json", ".sheet.json"),
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

    /// The contact sheet's names: `index.html`, a feed page's `index-<source>-p<page>.html` and
    /// its later parts `…-<part>.html`, read from the end (a source may hold `-` and `-p3`);
    /// an earlier release's `index-<n>.html` (listed so that it can be removed); nothing else.
    @Test func sheetPagesAreNamedAfterTheirFeedPage() throws {
        let pages: [(String, String, Int, Int)] = [
            ("index-pixabay-p1.html", "pixabay", 1, 1),
            ("index-pixabay-p1-2.html", "pixabay", 1, 2),
            ("index-launches-p130-12.html", "launches", 130, 12),
            ("index-a-p3-p1.html", "a-p3", 1, 1),
            ("index-a-p3-p1-2.html", "a-p3", 1, 2),
            ("index-2-p3.html", "2", 3, 1),
            ("index-my.src_1-p0.html", "my.src_1", 0, 1),
            ("index-_" + String(repeating: "0f", count: 32) + "-p0.html", "_" + String(repeating: "0f", count: 32), 0, 1),
            ("index-" + String(repeating: "s", count: 64) + "-p9.html", String(repeating: "s", count: 64), 9, 1),
        ]
        for (name, source, page, part) in pages {
            let parsed = try #require(FileHandle.sheetPage(name), "\(name)")
            #expect(parsed.source == source[...] && parsed.page == page && parsed.part == part, "\(name)")
            #expect(FileHandle.isSheetPage(name), "\(name)")
            #expect(FileHandle(.sheet, name) != nil && FileHandle(.state, name) == nil, "\(name)")
            #expect(FileHandle.classify(name)?.kind == .sheet, "\(name)")
        }
        for legacy in ["index.html", "index-2.html", "index-130.html"] {
            #expect(FileHandle.isSheetPage(legacy), "\(legacy)")
        }
        let others = [
            "index-pixabay.html", "index-pixabay-p.html", "index-pixabay-p01.html", "index-pixabay-p1-1.html",
            "index-pixabay-p1-02.html", "index--p1.html", "index-notes.html", "index-p1.html", "index-a b-p1.html",
            "index-" + String(repeating: "s", count: 65) + "-p9.html", "index-~0123456789abcdef-p0.html", "index-_" + String(repeating: "0F", count: 32) + "-p0.html",
            "index-_" + String(repeating: "0f", count: 33) + "-p0.html",
            "index-..-p1.html", "index-pixabay-p1.htm", "indexpixabay-p1.html", "index-pixabay-p1234567890.html",
            "notes.html", "index-pixabay-p1.html.0123456789ab.part",
        ]
        for name in others {
            #expect(!FileHandle.isSheetPage(name), "\(name)")
            #expect(FileHandle(.sheet, name) == nil, "\(name)")
        }
        let staged = try #require(FileHandle.classify("index-pixabay-p1-2.html.0123456789ab.part"))
        #expect(staged.kind == .sheet && staged.isPartial)
    }
}
