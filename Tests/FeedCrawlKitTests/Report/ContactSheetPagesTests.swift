import FeedCrawlStorage
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport

/// The sheet in pages: one per feed page, named after it (`index-<source>-p<page>.html`, its
/// later parts `…-<part>.html`), bounded by items and bytes, linked to its neighbours and to
/// `index.html`; `index.html` with the run's header, a compact table of contents and the first
/// page's tiles.
@Suite("Contact sheet pages")
struct ContactSheetPagesTests {
    /// `count` items over two sources and feed pages of `perPage` items each.
    static func manifest(_ count: Int, perPage: Int = 5, title: (Int) -> String = { "title \($0)" }) -> Manifest {
        let items = (0..<count).map { n in
            ContactSheetTests.item(n % 3 == 0 ? "launches" : "pixabay", String(n), page: n / perPage + 1, title: title(n),
                                   author: "user\(n)", [n % 7 == 0 ? ContactSheetTests.failed("preview") : ContactSheetTests.stored("preview", n)])
        }
        return ContactSheetTests.manifest(items)
    }

    @Test func pageNamesAreReadBackFromTheEnd() throws {
        #expect(ContactSheet.pageName(source: "pixabay", page: 3) == "index-pixabay-p3.html")
        #expect(ContactSheet.pageName(source: "pixabay", page: 3, part: 1) == "index-pixabay-p3.html")
        #expect(ContactSheet.pageName(source: "pixabay", page: 3, part: 2) == "index-pixabay-p3-2.html")
        for (source, page, part) in [("a-p3", 1, 1), ("a-p3", 1, 2), ("2", 30, 7), ("x.y_z-", 0, 1), (String(repeating: "n", count: 64), 123_456, 99)] {
            let name = ContactSheet.pageName(source: source, page: page, part: part)
            let parsed = try #require(FileHandle.sheetPage(name), "\(name)")
            #expect(parsed.source == source[...] && parsed.page == page && parsed.part == part, "\(name)")
            #expect(FileHandle(.sheet, name) != nil)
        }
        // Sources no file name can carry, and negative pages: a name from their hash, each its own.
        var odd = Set<String>()
        for (source, page) in [("pix<a>", 1), ("pix<a>", 2), ("é", 1), ("e\u{301}", 1), ("", 1), ("pixabay", -1), ("a/b", 1),
                               (String(repeating: "n", count: 65), 1)] {
            let name = ContactSheet.pageName(source: source, page: page)
            #expect(name.hasPrefix("index-_") && FileHandle(.sheet, name) != nil && HTMLText.isSafeRelativePath(name), "\(name)")
            #expect(FileHandle(.sheet, ContactSheet.pageName(source: source, page: page, part: 2)) != nil)
            odd.insert(name)
        }
        #expect(odd.count == 8)
    }

    @Test func pagesAreBoundedByItemsAndBytes() {
        #expect(ContactSheet.paging(sizes: [Int](), itemsPerPage: 1000, bytesPerPage: 1 << 20) == [0])
        #expect(ContactSheet.paging(sizes: Array(repeating: 600, count: 2500), itemsPerPage: 1000, bytesPerPage: 1 << 20) == [1000, 1000, 500])
        #expect(ContactSheet.paging(sizes: Array(repeating: 600, count: 2000), itemsPerPage: 1000, bytesPerPage: 1 << 20) == [1000, 1000])
        // Long tiles: fewer on a page.
        #expect(ContactSheet.paging(sizes: Array(repeating: 400, count: 7), itemsPerPage: 1000, bytesPerPage: 1000) == [2, 2, 2, 1])
        // A tile larger than a page gets one of its own.
        #expect(ContactSheet.paging(sizes: [5000, 10, 0], itemsPerPage: 1000, bytesPerPage: 1500) == [1, 2])
        // A header counts against the first page.
        #expect(ContactSheet.paging(sizes: Array(repeating: 400, count: 5), itemsPerPage: 1000, bytesPerPage: 1000, firstPageReserve: 500)
            == [1, 2, 2])
    }

    /// 23 items on one feed page at 7 a page: 4 parts, each a whole document, every tile once
    /// and in order; each part links the contact sheet, the parts before and after, and every
    /// part; the first and last parts link the neighbouring feed pages; every link names a page
    /// of the sheet.
    @Test func partsHoldEveryTileOnceAndLinkEachOther() {
        let items = (0..<23).map { n in ContactSheetTests.item("pixabay", String(n), page: 2, author: "u\(n)", [ContactSheetTests.stored("preview", n)]) }
            + [ContactSheetTests.item("launches", "1", page: 1, [ContactSheetTests.stored("small", 1)]),
               ContactSheetTests.item("pixabay", "100", page: 3, [ContactSheetTests.stored("preview", 100)])]
        let manifest = ContactSheetTests.manifest(items)
        let all = ContactSheet.pages(manifest, pageItems: 7)
        let names = all.map(\.name)
        #expect(names == ["index.html", "index-launches-p1.html", "index-pixabay-p2.html", "index-pixabay-p2-2.html",
                          "index-pixabay-p2-3.html", "index-pixabay-p2-4.html", "index-pixabay-p3.html"])
        let parts = Array(all[2...5])
        #expect(parts.map { SheetFixture.ids($0.html).count } == [7, 7, 7, 2])
        #expect(parts.flatMap { SheetFixture.ids($0.html) } == (0..<23).map(String.init))
        for (index, part) in parts.enumerated() {
            let html = part.html, number = index + 1
            #expect(html.hasPrefix("<!doctype html>"))
            #expect(html.hasSuffix("</main>\n</body>\n</html>\n"))
            #expect(html.contains("<title>feedcrawl contact sheet — pixabay page 2, part \(number) of 4</title>"))
            // The toggle works on every page; no script anywhere; no time that changes every run.
            #expect(html.contains("<i id=\"problems\" class=\"pt\"></i>"))
            #expect(html.contains("<a href=\"#problems\" class=\"pfl\">show only items without an image</a>"))
            #expect(!html.contains("<script"))
            #expect(!html.contains("Last run") && !html.contains("generated"))
            #expect(html.components(separatedBy: "<section").count == html.components(separatedBy: "</section>").count)
            #expect(html.components(separatedBy: "<div class=\"grid\">").count == html.components(separatedBy: "</div>\n").count)
            // The links, at the top and the bottom.
            #expect(html.components(separatedBy: "<nav class=\"pg\">").count - 1 == 2)
            #expect(html.contains("<a class=\"na\" href=\"index.html\">contact sheet</a>"))
            #expect(html.contains(" · parts"))
            if number == 1 {
                #expect(html.contains("<a class=\"na\" href=\"index-launches-p1.html\" rel=\"prev\">previous: launches page 1</a>"))
            } else {
                #expect(html.contains("<a class=\"na\" href=\"\(names[index + 1])\" rel=\"prev\">previous</a>"))
                #expect(html.contains("(continued)"))
            }
            if number == 4 {
                #expect(html.contains("<a class=\"na\" href=\"index-pixabay-p3.html\" rel=\"next\">next: page 3</a>"))
            } else {
                #expect(html.contains("<a class=\"na\" href=\"\(names[index + 3])\" rel=\"next\">next</a>"))
            }
            for link in SheetFixture.pageLinks(html) { #expect(names.contains(link), "\(part.name) links \(link)") }
        }
        // The first and last feed pages have no neighbour on one side.
        #expect(all[1].html.contains("· previous · <a class=\"na\" href=\"index-pixabay-p2.html\" rel=\"next\">next: pixabay page 2</a>"))
        #expect(all[6].html.contains("<a class=\"np\" href=\"index-pixabay-p2.html#problems\" rel=\"prev\">previous: page 2</a> · next</nav>"))
        // Every link between sheet pages comes twice: as it is, and keeping the filter on.
        for page in all.dropFirst() {
            let plain = page.html.components(separatedBy: "<a class=\"na\" href=\"").count
            #expect(plain > 1 && plain == page.html.components(separatedBy: "<a class=\"np\" href=\"").count, "\(page.name)")
            #expect(page.html.contains("#problems\" rel=\"") || page.name == "index-launches-p1.html")
        }
        // index.html links every feed page's first part.
        for name in ["index-launches-p1.html", "index-pixabay-p2.html", "index-pixabay-p3.html"] {
            #expect(all[0].html.contains("<a href=\"\(name)\">"))
        }
        for link in SheetFixture.pageLinks(all[0].html) { #expect(names.contains(link), "index.html links \(link)") }
        // Nothing lacks an image here: no list of where such items are.
        #expect(!all[0].html.contains("class=\"pp\""))
    }

    /// Issue 35: the items without an image can be found from `index.html`: it names the feed
    /// pages that hold them, with their counts, each linked with the filter on (`#problems`),
    /// which the style turns on from the URL alone.
    @Test func theIndexNamesThePagesWithItemsWithoutAnImage() {
        var items = (0..<6).map { n in ContactSheetTests.item("pixabay", String(n), page: 1, [ContactSheetTests.stored("preview", n)]) }
        items += (6..<9).map { n in ContactSheetTests.item("pixabay", String(n), page: 2, [ContactSheetTests.stored("preview", n)]) }
        items += [ContactSheetTests.item("pixabay", "9", page: 2, []), ContactSheetTests.item("launches", "1", page: 4, [])]
        let all = ContactSheet.pages(ContactSheetTests.manifest(items), pageItems: 7)
        let index = all[0].html
        #expect(index.contains("<p class=\"pp\">2 items without an image, on 2 feed pages: "
            + "<a href=\"index-launches-p4.html#problems\">launches 4</a> (1), <a href=\"index-pixabay-p2.html#problems\">pixabay 2</a> (1)</p>"),
            "\(index)")
        #expect(!index.contains("index-pixabay-p1.html#problems\">"))
        #expect(ContactSheet.style.contains(".pt:target~main figure.ok{display:none}"))
    }

    /// Titles of 500 characters that each escape to 6 bytes: the parts hold fewer items, and
    /// none is larger than its bytes allow with its header.
    @Test func longTextMakesMorePagesNotLargerOnes() {
        let items = (0..<60).map { n in
            ContactSheetTests.item("pixabay", String(n), page: 1, title: String(repeating: "\"", count: 500), [ContactSheetTests.stored("preview", n)])
        }
        let pages = ContactSheet.pages(ContactSheetTests.manifest(items), pageItems: 1000, pageBytes: 40_000)
        #expect(pages.count > 2)
        for page in pages { #expect(page.html.utf8.count <= 40_000 + 8000, "\(page.name): \(page.html.utf8.count)") }
        #expect(pages.dropFirst().flatMap { SheetFixture.ids($0.html) }.count == 60)
    }

    /// index.html shows the first feed page's tiles as far as they fit beside its header, and
    /// links the page for the rest.
    @Test func indexShowsTheFirstPagesTiles() {
        let pages = ContactSheet.pages(Self.manifest(40, perPage: 20), pageItems: 3)
        let index = pages[0].html
        #expect(pages[1].name == "index-launches-p1.html")
        #expect(SheetFixture.ids(index) == SheetFixture.ids(pages[1].html))
        #expect(SheetFixture.ids(index).count == 3)
        #expect(index.contains("<h2><a href=\"index-launches-p1.html\">launches page 1</a> <small>7 items</small></h2>"))
        #expect(index.contains("<p class=\"more\">4 more items of this page on <a href=\"index-launches-p1.html\">its sheet page</a>.</p>"))
        // A small page: all of it, nothing more to link.
        let small = ContactSheet.pages(Self.manifest(4))
        #expect(SheetFixture.ids(small[0].html).count == 2)
        #expect(!small[0].html.contains("class=\"more\""))
    }

    /// 10,000 feed pages, with source names as long as allowed: `index.html` stays under 2 MiB
    /// (its links are bounded; the tiles fit what is left), and a source of many pages is
    /// summarised as ranges.
    @Test func theIndexOfTenThousandFeedPagesStaysUnderTwoMebibytes() {
        let names = [String(repeating: "a", count: 64), String(repeating: "b", count: 64)]
        let items = (0..<10_000).flatMap { page in
            (0..<2).map { n in
                ContactSheetTests.item(names[page % 2], "\(page)-\(n)", page: page / 2 + (page % 2 == 0 && page > 5000 ? 3 : 1),
                                       title: String(repeating: "t", count: 100), [ContactSheetTests.stored("preview", page * 2 + n)])
            }
        }
        let sheet = ContactSheet(run: ContactSheetTests.manifest([]).run)
        var entries: [GroupEntry] = []
        for (number, item) in items.enumerated() where number % 2 == 0 {
            let header = GroupHeader(number: UInt32(number + 1), source: item.source, page: item.page, digest: nil, recipe: nil,
                                     listed: 1_714_564_800_000, items: 2)
            entries.append(GroupEntry(header: header, segment: "s", offset: 0, length: 0, items: [item, item]))
        }
        let pages = ContactSheet.feedPages(GroupTable(entries: entries))
        #expect(pages.count == 10_000)
        let tiles = (0..<400).map { n -> String in
            var out = ""
            sheet.figure(items[n], into: &out)
            return out
        }
        let first = ContactSheet.Tiles(page: pages[0], groups: [.init(entry: pages[0].groups[0], earlier: false, tiles: tiles)])
        let index = sheet.renderIndex(pages, first: first, generatedAt: ContactSheetTests.runStart)
        #expect(index.utf8.count < 2 << 20, "\(index.utf8.count)")
        #expect(index.contains("<details><summary><a href=\"index-\(names[0])-p1.html\">\(names[0])</a>: 5000 pages (1–2501, 2504–5002), 10000 items</summary>"))
        #expect(!SheetFixture.ids(index).isEmpty)
    }
}

/// The pages as a run writes them, through a backend.
extension ContactSheetPagesTests {
    /// The pages written from an archive are the in-memory ones; pages of an earlier sheet
    /// (an earlier release's `index-<n>.html`, feed pages no longer held) and staged bodies go;
    /// other files stay.
    @Test func theWrittenPagesAreTheInMemoryOnesAndStalePagesGo() async throws {
        let dir = TestDirectory()
        for name in ["index-4.html", "index-12.html", "index-notes.html", "index-pixabay-p99.html", "index-pixabay-p1.html.0123456789ab.part"] {
            try AtomicFile.write(Array("old \(name)".utf8), to: dir.file(name))
        }
        let backend = try Backends.folder(dir.path)
        let manifest = Self.manifest(23)
        let repository = try await SheetFixture.archive(manifest, in: backend)
        let written = try await SheetFixture.write(repository, run: manifest.run, backend: backend, pageItems: 3)
        let expected = SheetFixture.expected(manifest, pageItems: 3)
        #expect(try await SheetFixture.pages(backend) == expected)
        #expect(Set(written.removed) == ["index-4.html", "index-12.html", "index-pixabay-p99.html", "index-pixabay-p1.html.0123456789ab.part"])
        #expect(written.saved == expected.count)
        let listed = TestDirectory.list(dir.path)
        #expect(listed.filter { $0.hasPrefix("index") }.sorted() == (expected.keys + ["index-notes.html"]).sorted())
        #expect(listed.contains(".sheet.json"))
        #expect(!listed.contains { $0.hasSuffix(".part") })
    }

    /// A store that fails while the pages are saved: `index.html` is the earlier one, every page
    /// it links is there; the next write mends everything, although the pages it changed meanwhile
    /// are back to what the state had vouched for.
    @Test func aFailedWriteKeepsTheEarlierIndexAndTheNextWriteMendsIt() async throws {
        let memory = Backends.memory()
        let backend = SheetTestBackend(memory)
        let first = Self.manifest(40)
        let repository = try await SheetFixture.archive(first, in: memory)
        try await SheetFixture.write(repository, run: first.run, backend: backend, pageItems: 3)
        let before = try await SheetFixture.pages(memory)

        // A run whose pages all read differently (another link base) fails after two pages.
        backend.allowSheetSaves(2)
        await #expect(throws: BackendError.self) {
            try await SheetFixture.write(repository, run: first.run, backend: backend, linkBase: "https://cdn.example/out", pageItems: 3)
        }
        backend.allowSheetSaves(nil)
        let after = try await SheetFixture.pages(memory)
        #expect(after["index.html"] == before["index.html"])
        for link in SheetFixture.pageLinks(before["index.html"] ?? "") { #expect(after[link] != nil, "\(link)") }
        #expect(after.filter { before[$0.key] != $0.value }.count >= 1, "some page was already rewritten")

        // The next run is the first one's again: what the failed run changed is rendered again.
        try await SheetFixture.write(repository, run: first.run, backend: backend, pageItems: 3)
        let mended = try await SheetFixture.pages(memory)
        #expect(mended.keys.sorted() == before.keys.sorted())
        for (name, html) in mended where name != "index.html" { #expect(html == before[name], "\(name)") }
    }
}
