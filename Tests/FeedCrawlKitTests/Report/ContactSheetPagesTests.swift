import FoundationEssentials
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

/// The sheet in pages (`index.html`, `index-2.html`, …): bounded by items and bytes, linked to
/// one another, written page by page with the first page renamed last, stale pages removed.
@Suite("Contact sheet pages")
struct ContactSheetPagesTests {
    /// `count` items over two sources and pages of `perPage` items each.
    static func manifest(_ count: Int, perPage: Int = 5, title: (Int) -> String = { "title \($0)" }) -> Manifest {
        let items = (0..<count).map { n in
            ContactSheetTests.item(n % 3 == 0 ? "launches" : "pixabay", String(n), page: n / perPage + 1, title: title(n),
                                   author: "user\(n)", [n % 7 == 0 ? ContactSheetTests.failed("preview") : ContactSheetTests.stored("preview", n)])
        }
        return ContactSheetTests.manifest(items)
    }

    /// The ids of the tiles on `html`, in order.
    static func ids(_ html: String) -> [String] {
        html.split(separator: "<span class=\"id\">#").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    /// Every `href` of `html` naming a sheet page, with its anchor.
    static func pageLinks(_ html: String) -> [(page: Int, anchor: String?)] {
        ContactSheetTests.values(of: "href", in: html).compactMap { href in
            let parts = href.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let anchor = parts.count > 1 ? parts[1] : nil
            if parts[0].isEmpty { return anchor.map { (0, $0) } }  // on the same page
            return ContactSheet.pageNumber(parts[0]).map { ($0, anchor) }
        }
    }

    @Test func pageNames() {
        #expect(ContactSheet.fileName(page: 1) == "index.html")
        #expect(ContactSheet.fileName(page: 12) == "index-12.html")
        #expect(ContactSheet.pageNumber("index.html") == 1)
        #expect(ContactSheet.pageNumber("index-2.html") == 2)
        #expect(ContactSheet.pageNumber("index-130.html") == 130)
        for name in ["index-1.html", "index-02.html", "index-2.html.0123456789ab.part", "index-x.html", "index-.html",
                     "index-2.htm", "xindex-2.html", "index-9999999999.html", "manifest.json"] {
            #expect(ContactSheet.pageNumber(name) == nil, "\(name)")
        }
        #expect(ContactSheet.stalePages(["index.html", "index-2.html", "index-3.html", "index-10.html", "index-3.html.x.part", "notes.html"], pages: 2)
            == ["index-3.html", "index-10.html"])
    }

    @Test func pagesAreBoundedByItemsAndBytes() {
        #expect(ContactSheet.paging(sizes: [Int](), itemsPerPage: 1000, bytesPerPage: 1 << 20) == [0])
        #expect(ContactSheet.paging(sizes: Array(repeating: 600, count: 2500), itemsPerPage: 1000, bytesPerPage: 1 << 20) == [1000, 1000, 500])
        #expect(ContactSheet.paging(sizes: Array(repeating: 600, count: 2000), itemsPerPage: 1000, bytesPerPage: 1 << 20) == [1000, 1000])
        // Long tiles: fewer on a page.
        #expect(ContactSheet.paging(sizes: Array(repeating: 400, count: 7), itemsPerPage: 1000, bytesPerPage: 1000) == [2, 2, 2, 1])
        // A tile larger than a page gets one of its own; a lost one (0) counts as `lostTileBytes`.
        #expect(ContactSheet.paging(sizes: [5000, 10, 0], itemsPerPage: 1000, bytesPerPage: 1500) == [1, 2])
        // The first page's header counts against it.
        #expect(ContactSheet.paging(sizes: Array(repeating: 400, count: 5), itemsPerPage: 1000, bytesPerPage: 1000, firstPageReserve: 500)
            == [1, 2, 2])
    }

    /// 23 items at 7 a page: 4 pages, each a whole document, every tile once and in order, each
    /// page linking first, previous, next and last; the first page's links to sources and feed
    /// pages point at the page that has their heading.
    @Test func pagesHoldEveryTileOnceAndLinkEachOther() {
        let manifest = Self.manifest(23)
        let all = ContactSheet.pages(manifest, pageItems: 1000)
        #expect(all.count == 1)
        let pages = ContactSheet.pages(manifest, pageItems: 7)
        #expect(pages.count == 4)
        #expect(pages.map { Self.ids($0).count } == [7, 7, 7, 2])
        #expect(pages.flatMap(Self.ids) == Self.ids(all[0]))
        for (index, html) in pages.enumerated() {
            let page = index + 1
            #expect(html.hasPrefix("<!doctype html>"))
            #expect(html.hasSuffix("</main>\n</body>\n</html>\n"))
            #expect(html.contains("<title>feedcrawl contact sheet 2024-05-01 12:00:05Z, page \(page) of 4</title>"))
            // The toggle works on every page; no script anywhere.
            #expect(html.contains("<input type=\"checkbox\" id=\"pf\" class=\"pf\">"))
            #expect(html.contains("<label for=\"pf\" class=\"pfl\">show only items without an image</label>"))
            #expect(!html.contains("<script"))
            #expect(html.components(separatedBy: "<section").count == html.components(separatedBy: "</section>").count)
            #expect(html.components(separatedBy: "<div class=\"grid\">").count == html.components(separatedBy: "</div>\n").count)
            // The pager, at the top and the bottom.
            #expect(html.components(separatedBy: "<nav class=\"pg\">").count - 1 == 2)
            if page > 1 {
                #expect(html.contains("<a href=\"index.html\">first</a>"))
                #expect(html.contains("<a href=\"\(ContactSheet.fileName(page: page - 1))\" rel=\"prev\">previous</a>"))
                #expect(!html.contains("Last run"))
                #expect(html.contains("<a href=\"index.html\">first page</a>"))
            } else {
                #expect(html.contains("Last run 2024-05-01 12:00:00Z (4.0 s)"))
            }
            if page < 4 {
                #expect(html.contains("<a href=\"\(ContactSheet.fileName(page: page + 1))\" rel=\"next\">next</a>"))
                #expect(html.contains("<a href=\"index-4.html\">last</a>"))
            }
            // Every link to a page names one of the sheet's, and every anchor is there.
            for link in Self.pageLinks(html) {
                let target = link.page == 0 ? html : (1...4).contains(link.page) ? pages[link.page - 1] : ""
                #expect(!target.isEmpty, "page \(page) links page \(link.page)")
                if let anchor = link.anchor { #expect(target.contains(" id=\"\(anchor)\""), "page \(page): #\(anchor)") }
            }
        }
        // The first page links every page.
        for page in 2...4 { #expect(pages[0].contains("<a href=\"index-\(page).html\">\(page)</a>")) }
        // A feed page cut by a sheet page is headed again there, without its id.
        #expect(pages[1].contains("(continued)"))
        #expect(pages.joined().components(separatedBy: " id=\"s1p1\"").count - 1 == 1)
    }

    /// Titles of 500 characters that each escape to 6 bytes: the pages hold fewer items, and
    /// none is larger than its bytes allow with its header.
    @Test func longTextMakesMorePagesNotLargerOnes() {
        let manifest = Self.manifest(60, title: { _ in String(repeating: "\"", count: 500) })
        let pages = ContactSheet.pages(manifest, pageItems: 1000, pageBytes: 40_000)
        #expect(pages.count > 1)
        let header = ContactSheet.pages(Self.manifest(0), pageItems: 1000)[0].utf8.count
        for html in pages { #expect(html.utf8.count <= 40_000 + header + 2000, "\(html.utf8.count)") }
        #expect(pages.flatMap(Self.ids).count == 60)
    }

    /// A sheet of one page has no pager and links its own anchors.
    @Test func aSheetOfOnePageHasNoPager() {
        let html = ContactSheet.html(Self.manifest(10))
        #expect(!html.contains("<nav class=\"pg\">"))
        #expect(!html.contains("index-2.html"))
        #expect(html.contains("<a href=\"#s0p1\">1</a>"))
    }
}

/// The pages as the crawler writes them.
extension ContactSheetPagesTests {
    static func write(_ manifest: Manifest, in dir: TestDirectory, pageItems: Int) throws {
        let index = ContactSheet.Index(spill: Spill(directory: dir.path), run: manifest.run, pageItems: pageItems)
        try ContactSheetWriteTests.save(manifest, in: dir, adding: index)
        try ContactSheet.write(index: index, manifestPath: CacheLayout(outDirectory: dir.path).manifestPath, outDirectory: dir.path)
    }

    static func read(_ dir: TestDirectory, _ page: Int) throws -> String {
        String(decoding: try FileIO.read(dir.file(ContactSheet.fileName(page: page))), as: UTF8.self)
    }

    @Test func theWrittenPagesAreTheInMemoryOnesAndStalePagesGo() throws {
        let dir = TestDirectory()
        for name in ["index-4.html", "index-5.html", "index-12.html", "index-notes.html"] {
            try AtomicFile.write(Array("old \(name)".utf8), to: dir.file(name))
        }
        let manifest = Self.manifest(23)
        try Self.write(manifest, in: dir, pageItems: 7)
        let expected = ContactSheet.pages(manifest, pageItems: 7)
        #expect(try (1...4).map { try Self.read(dir, $0) } == expected)
        // index-5 and index-12 were an earlier, larger sheet's; index-4 is this one's now.
        #expect(TestDirectory.list(dir.path) == ["index-2.html", "index-3.html", "index-4.html", "index-notes.html", "index.html",
                                                 "manifest.json"])
        #expect(ContactSheet.pageFiles(in: dir.path) == ["index-2.html", "index-3.html", "index-4.html", "index.html"])

        // Fewer items later: one page, the others removed.
        try Self.write(Self.manifest(5), in: dir, pageItems: 7)
        #expect(TestDirectory.list(dir.path) == ["index-notes.html", "index.html", "manifest.json"])
        #expect(ContactSheet.pageFiles(in: dir.path) == ["index.html"])
    }

    /// A disk that fills while the pages are written: the first page is the earlier sheet's,
    /// whose links all still work; no temporary file is left.
    @Test func aFailedWriteKeepsTheEarlierFirstPageAndItsLinksWork() throws {
        let dir = TestDirectory()
        try Self.write(Self.manifest(40), in: dir, pageItems: 7)  // 6 pages
        let before = try Self.read(dir, 1)
        #expect(TestDirectory.list(dir.path).filter { ContactSheet.pageNumber($0) != nil }.count == 6)

        let manifest = Self.manifest(30, title: { "new title \($0)" })
        let layout = CacheLayout(outDirectory: dir.path)
        let index = ContactSheet.Index(spill: nil, run: manifest.run, pageItems: 7)
        try ContactSheetWriteTests.save(manifest, in: dir, adding: index)
        let pageBytes = ContactSheet.pages(manifest, pageItems: 7).map(\.utf8.count)
        // Room for page 2 whole (written after the first page's buffer, which is not yet written).
        WriteFaults.arm(directory: dir.path, allowBytes: Int64(pageBytes[1] + 100))
        defer { WriteFaults.disarm(directory: dir.path) }
        #expect(throws: FileSystemError.self) {
            try ContactSheet.write(index: index, manifestPath: layout.manifestPath, outDirectory: dir.path)
        }
        WriteFaults.disarm(directory: dir.path)
        #expect(try Self.read(dir, 1) == before)
        #expect(try Self.read(dir, 2).contains("new title"))
        for link in Self.pageLinks(before) where link.page > 0 {
            #expect(FileIO.exists(dir.file(ContactSheet.fileName(page: link.page))), "\(link.page)")
        }
        #expect(!TestDirectory.list(dir.path).contains { $0.hasSuffix(".part") })
    }
}
