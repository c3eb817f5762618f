import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Contact sheet (index.html)")
struct ContactSheetTests {
    /// 2024-05-01T12:00:00Z
    static let runStart = Date(timeIntervalSince1970: 1_714_564_800)

    static func item(_ source: String, _ id: String, page: Int, status: ItemStatus, title: String = "a title",
                     file: String? = nil, error: String? = nil, seen: Date = runStart) -> ManifestItem {
        var item = ManifestItem(source: source, id: id, page: page, title: title,
                                imageURL: status == .noImage ? nil : "https://cdn.example/\(id).jpg", status: status)
        item.file = file ?? (status.hasImage ? "cache/\(id.prefix(2))/\(id).jpg" : nil)
        item.error = error
        item.lastSeen = seen
        if status.hasImage {
            item.bytes = 12_345
            item.width = 150
            item.height = 99
        }
        return item
    }

    static func manifest(_ items: [ManifestItem]) -> Manifest {
        var manifest = Manifest(generatedAt: runStart.addingTimeInterval(5), items: items)
        manifest.run = RunRecord(
            startedAt: runStart, finishedAt: runStart.addingTimeInterval(4.2),
            counts: RunRecord.counts(of: items.filter { $0.lastSeen == runStart }), bytes: 24_690,
            sources: [.init(source: "pixabay", pages: 2, items: 3), .init(source: "launches", pages: 0, items: 0, error: "HTTP 500 <b>")])
        return manifest
    }

    /// Every `src="…"` value in `html`.
    static func imageSources(_ html: String) -> [String] {
        html.split(separator: "<img src=\"", omittingEmptySubsequences: false).dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    @Test func groupsBySourceAndPageWithTheRunsCounts() {
        let items = [
            Self.item("pixabay", "20", page: 2, status: .downloaded),
            Self.item("pixabay", "10", page: 1, status: .fresh),
            Self.item("pixabay", "11", page: 1, status: .failed, error: "HTTP 404"),
            Self.item("launches", "7", page: 1, status: .noImage, title: "Mission 7", seen: Self.runStart.addingTimeInterval(-86400)),
        ]
        let html = ContactSheet(manifest: Self.manifest(items)).html()
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.hasSuffix("</html>\n"))
        // Sources in stable order (launches < pixabay), pages ascending inside each.
        let launches = html.firstRange(of: "<h2>launches")!.lowerBound
        let pixabay = html.firstRange(of: "<h2>pixabay")!.lowerBound
        let page1 = html.firstRange(of: "id=\"s1p1\"")!.lowerBound
        let page2 = html.firstRange(of: "id=\"s1p2\"")!.lowerBound
        #expect(launches < pixabay && pixabay < page1 && page1 < page2)
        #expect(html.contains("<b>3 items</b>"))
        #expect(html.contains("<span class=\"c st-fresh\">1 fresh</span>"))
        #expect(html.contains("<span class=\"c st-failed\">1 failed</span>"))
        #expect(html.contains("HTTP 500 &lt;b&gt;"))
        #expect(html.contains("HTTP 404"))
        #expect(html.contains("150×99"))
        #expect(html.contains("12.1 KiB"))
        #expect(html.contains("(1 not listed by the last run, shown faded)"))
        #expect(html.contains("figure class=\"st-no-image old\""))
        #expect(Self.imageSources(html).sorted() == ["cache/10/10.jpg", "cache/20/20.jpg"])
        #expect(html.contains("href=\"#s1p2\""))
        #expect(!html.contains("<script"))
    }

    @Test func escapesFeedTextAndRefusesUnsafePaths() {
        var evil = Self.item("pixabay", "1", page: 1, status: .downloaded,
                             title: "<script>alert('x')</script>\u{1B}[2J & \"q\"", file: "../../etc/passwd")
        evil.author = "<img src=x onerror=alert(1)>"
        var link = Self.item("pixabay", "2", page: 1, status: .failed, error: "<b>bad</b>")
        link.imageURL = "javascript:alert(1)"
        let html = ContactSheet(manifest: Self.manifest([evil, link])).html()
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(!html.contains("\u{1B}"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(Self.imageSources(html).isEmpty)        // the unsafe path is not linked
        #expect(html.contains("file missing"))
        #expect(!html.contains("href=\"javascript"))    // feed URLs are text only
        #expect(html.contains("&lt;b&gt;bad&lt;/b&gt;"))
    }

    /// Escaping with its limit in characters, on the fast path (short printable ASCII) and off it.
    @Test func escapeCutsAtCharactersAndEscapes() {
        #expect(HTMLText.escape("plain title 42", limit: 14) == "plain title 42")
        #expect(HTMLText.escape("plain title 42", limit: 13) == "plain title 4…")
        #expect(HTMLText.escape("a&b<c>\"d'", limit: 100) == "a&amp;b&lt;c&gt;&quot;d&#39;")
        #expect(HTMLText.escape("tab\there\u{7F}", limit: 100) == "tab here")
        #expect(HTMLText.escape(String(repeating: "é", count: 10), limit: 10) == String(repeating: "é", count: 10))
        #expect(HTMLText.escape(String(repeating: "é", count: 11), limit: 10) == String(repeating: "é", count: 10) + "…")
        #expect(HTMLText.escape("\u{1B}[31mred\u{1B}[0m", limit: 100) == "red")
        #expect(HTMLText.escape("", limit: 0) == "")
    }

    @Test func missingFilesGetNoImage() {
        let items = [Self.item("pixabay", "10", page: 1, status: .downloaded), Self.item("pixabay", "11", page: 1, status: .fresh)]
        let sheet = ContactSheet(manifest: Self.manifest(items)) { $0 == "cache/10/10.jpg" }
        #expect(Self.imageSources(sheet.html()) == ["cache/10/10.jpg"])
    }

    @Test func safeRelativePaths() {
        for good in ["cache/ab/0123abcd.jpg", "a", "a/.../b.jpg", "A-b_c.d/E9", ".hidden/x", String(repeating: "a", count: 512)] {
            #expect(HTMLText.isSafeRelativePath(good), "\(good)")
        }
        let bads = ["", "/etc/passwd", "cache/../x", "./x", "cache//x", "a b", "javascript:alert(1)", "c/%2e%2e", "c/\"x",
                    ".", "..", "x/", "x/..", "x/.", "../x", "caf\u{E9}/x", "a\u{0}b", "a\\b", String(repeating: "a", count: 513)]
        for bad in bads {
            #expect(!HTMLText.isSafeRelativePath(bad), "\(bad)")
        }
    }

    @Test func emptyManifestStillRenders() {
        let html = ContactSheet(manifest: .empty).html()
        #expect(html.contains("No run recorded."))
        #expect(html.contains("lists no items yet"))
    }

    @Test func outlineGroupsConsecutiveSourcesAndPages() {
        let keys = [("launches", 1), ("launches", 1), ("launches", 2), ("pixabay", 1), ("pixabay", 3), ("pixabay", 3)]
        let outline = ContactSheet.Outline(keys: keys, earlier: 2)
        #expect(outline.count == 6)
        #expect(outline.earlier == 2)
        #expect(outline.groups == [
            .init(source: "launches", pages: [.init(page: 1, count: 2), .init(page: 2, count: 1)]),
            .init(source: "pixabay", pages: [.init(page: 1, count: 1), .init(page: 3, count: 2)]),
        ])
    }

    /// The crawler renders from items decoded one at a time, read once each, with an outline
    /// made beforehand: the page is the same as the one made from the whole manifest.
    @Test func streamedRenderingMatchesTheManifestsPage() {
        let items = [
            Self.item("pixabay", "20", page: 2, status: .downloaded),
            Self.item("pixabay", "10", page: 1, status: .fresh),
            Self.item("pixabay", "11", page: 1, status: .failed, error: "HTTP 404"),
            Self.item("launches", "7", page: 1, status: .noImage, seen: Self.runStart.addingTimeInterval(-86400)),
        ]
        let manifest = Self.manifest(items)
        let sheet = ContactSheet(manifest: manifest)
        let sorted = manifest.sortedItems
        var reads = 0
        let once = sorted.lazy.map { item -> ManifestItem in reads += 1; return item }
        let outline = ContactSheet.Outline(keys: sorted.map { ($0.source, $0.page) }, earlier: 1)
        var streamed = ""
        sheet.render(sortedItems: once, outline: outline) { streamed += $0 }
        #expect(streamed == sheet.html())
        #expect(reads == items.count)
    }

    @Test func tenThousandItemsStayLight() {
        let items = (0..<10_000).map { index in
            Self.item(index % 2 == 0 ? "pixabay" : "launches", String(index), page: index / 200 + 1,
                      status: index % 50 == 0 ? .failed : .downloaded, title: "tag one, tag two, tag \(index)")
        }
        var bytes = 0
        var pieces = 0
        ContactSheet(manifest: Self.manifest(items)).render { bytes += $0.utf8.count; pieces += 1 }
        #expect(bytes < 10_000 * 700)   // well under a kilobyte of markup per item
        #expect(pieces > 10_000)         // streamed item by item, never one giant string
        let html = ContactSheet(manifest: Self.manifest(Array(items.prefix(100)))).html()
        #expect(html.split(separator: "loading=\"lazy\"", omittingEmptySubsequences: false).count - 1 == Self.imageSources(html).count)
    }

    @Test func writeReplacesIndexAtomically() throws {
        let dir = TestDirectory()
        let cache = dir.path + "/cache/10"
        try AtomicFile.createDirectories(cache)
        try AtomicFile.write(Array("jpeg".utf8), to: cache + "/10.jpg")
        let items = [Self.item("pixabay", "10", page: 1, status: .downloaded), Self.item("pixabay", "11", page: 1, status: .downloaded)]
        try AtomicFile.write(Array("old".utf8), to: dir.file("index.html"))
        try ContactSheet.write(Self.manifest(items), outDirectory: dir.path)
        let html = String(decoding: try FileIO.read(dir.file("index.html")), as: UTF8.self)
        #expect(Self.imageSources(html) == ["cache/10/10.jpg"])   // 11's file is not on disk
        #expect(TestDirectory.list(dir.path) == ["cache", "index.html"])  // no temporary left
    }
}
