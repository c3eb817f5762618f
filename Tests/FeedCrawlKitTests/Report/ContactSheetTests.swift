import FeedCrawlStorage
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Contact sheet (index.html and the feed pages' pages)")
struct ContactSheetTests {
    /// 2024-05-01T12:00:00Z
    static let runStart = Date(timeIntervalSince1970: 1_714_564_800)

    static func stored(_ variant: String, _ n: Int, status: ItemStatus = .downloaded) -> ImageRecord {
        ImageRecord(variant: variant, url: "https://cdn.example/\(n)/\(variant).jpg", status: status,
                    file: ItemFixtures.file(n), bytes: 12_345, width: 150, height: 99)
    }

    static func failed(_ variant: String, _ error: String = "HTTP 404", status: ItemStatus = .failed) -> ImageRecord {
        ImageRecord(variant: variant, url: "https://cdn.example/\(variant)-missing.jpg", status: status, error: error)
    }

    static func item(
        _ source: String, _ id: String, page: Int, title: String = "a title", author: String? = nil, pageURL: String? = nil,
        error: String? = nil, seen: Date = runStart, _ images: [ImageRecord]
    ) -> ManifestItem {
        ManifestItem(source: source, id: id, page: page, title: title, author: author, pageURL: pageURL, lastSeen: seen,
                     error: error, images: images)
    }

    static func manifest(_ items: [ManifestItem], options: [String: String] = [:]) -> Manifest {
        var counts: [String: Int] = [:]
        for item in items where item.lastSeen == runStart { counts[item.status.rawValue, default: 0] += 1 }
        let run = RunRecord(
            startedAt: runStart, finishedAt: runStart.addingTimeInterval(4), options: options, counts: counts, bytes: 24_690,
            sources: [.init(source: "pixabay", pages: 2, items: 3), .init(source: "launches", pages: 0, items: 0, error: "HTTP 500 <b>")])
        return Manifest(generatedAt: runStart.addingTimeInterval(5), run: run, items: items)
    }

    /// Every value of `attribute="…"` in `html`.
    static func values(of attribute: String, in html: String) -> [String] {
        html.split(separator: " \(attribute)=\"", omittingEmptySubsequences: false).dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The `<figure>` of the item whose id is `id`.
    static func figure(_ id: String, in html: String) -> String {
        let figures = html.split(separator: "<figure ").map(String.init)
        return figures.first { $0.contains("<span class=\"id\">#\(id)</span>") } ?? ""
    }

    @Test func groupsBySourceAndPageWithTheRunsCounts() {
        let items = [
            Self.item("pixabay", "20", page: 2, [Self.stored("preview", 20)]),
            Self.item("pixabay", "10", page: 1, [Self.stored("preview", 10, status: .fresh)]),
            Self.item("pixabay", "11", page: 1, [Self.failed("preview")]),
            Self.item("launches", "7", page: 1, title: "Mission 7", seen: Self.runStart.addingTimeInterval(-86400), []),
        ]
        let pages = ContactSheet.pages(Self.manifest(items))
        // index.html first, then the feed pages in order: sources by name, pages ascending.
        #expect(pages.map(\.name) == ["index.html", "index-launches-p1.html", "index-pixabay-p1.html", "index-pixabay-p2.html"])
        for page in pages {
            #expect(page.html.hasPrefix("<!doctype html>"))
            #expect(page.html.hasSuffix("</html>\n"))
        }
        let html = pages.map(\.html).joined()
        let index = pages[0].html
        #expect(index.contains("<b>3 items</b>"))
        #expect(index.contains("<span class=\"c st-fresh\">1 fresh</span>"))
        #expect(index.contains("<span class=\"c st-failed\">1 failed</span>"))
        #expect(index.contains("HTTP 500 &lt;b&gt;"))
        #expect(html.contains("HTTP 404"))
        #expect(html.contains("150×99"))
        #expect(html.contains("12.1 KiB"))
        #expect(index.contains("(1 not listed by the last run, shown faded)"))
        #expect(html.contains("figure class=\"st-no-image old\""))
        // index.html shows the first sheet page's tiles (launches page 1), then each page its own.
        #expect(Self.values(of: "src", in: index).isEmpty)
        #expect(index.contains("<span class=\"id\">#7</span>"))
        #expect(Self.values(of: "src", in: pages[2].html) == [ItemFixtures.file(10)])
        #expect(Self.values(of: "src", in: pages[3].html) == [ItemFixtures.file(20)])
        // The table of contents links every feed page.
        #expect(index.contains("<a href=\"index-pixabay-p2.html\">2</a>"))
        #expect(index.contains("<summary><a href=\"index-pixabay-p1.html\">pixabay</a>: 2 pages (1–2), 3 items</summary>"))
        #expect(!html.contains("<script"))
    }

    @Test func theTileIsTheFirstStoredImageAndTheOtherVariantsAreLinkedOrNamed() {
        var keptCopy = Self.stored("preview", 1)
        keptCopy.status = .failed  // the last fetch failed; the file of an earlier run is kept
        keptCopy.error = "HTTP 503"
        let item = Self.item("pixabay", "5", page: 1, [keptCopy, Self.stored("webformat", 2), Self.stored("large", 3, status: .fresh),
                                                       Self.failed("huge", "timed out", status: .cancelled)])
        let html = ContactSheet.html(Self.manifest([item]))
        let figure = Self.figure("5", in: html)
        #expect(Self.values(of: "src", in: figure) == [ItemFixtures.file(2)])
        #expect(figure.contains("<a href=\"\(ItemFixtures.file(2))\"><img src=\"\(ItemFixtures.file(2))\""))
        #expect(figure.contains("<p class=\"v\">preview failed · <a href=\"\(ItemFixtures.file(3))\">large</a> · huge cancelled</p>"))
        #expect(figure.contains("figure class=\"st-failed ok\"") || html.contains("<figure class=\"st-failed ok\""))
        // The failure is named (the item is failed), with the URL as text.
        #expect(figure.contains("<p class=\"e\">HTTP 503</p>"))
        #expect(figure.contains("<p class=\"u\">https://cdn.example/1/preview.jpg</p>"))
        // No stored image at all: a placeholder with the status.
        let none = ContactSheet.html(Self.manifest([Self.item("launches", "6", page: 1, [Self.failed("small"), Self.failed("large", "HTTP 500")])]))
        #expect(Self.values(of: "src", in: none).isEmpty)
        #expect(none.contains("<div class=\"ph\">failed</div>"))
        #expect(none.contains("<p class=\"v\">small failed · large failed</p>"))  // no tile: every variant named
    }

    @Test func pixabayItemsCreditTheirUserAndLinkTheirPageOnlyWhenHTTP() {
        let items = [
            Self.item("pixabay", "1", page: 1, author: "Josch<13>", pageURL: "https://pixabay.com/photos/flower-195893/", [Self.stored("preview", 1)]),
            Self.item("pixabay", "2", page: 1, author: "Mia", pageURL: "javascript:alert(1)", [Self.stored("preview", 2)]),
            Self.item("pixabay", "3", page: 1, author: "Leo", pageURL: "file:///etc/passwd", [Self.stored("preview", 3)]),
            Self.item("pixabay", "4", page: 1, pageURL: "http://pixabay.com/p/4\"onclick=\"x", [Self.stored("preview", 4)]),
            Self.item("pixabay", "5", page: 1, author: "Ann", [Self.stored("preview", 5)]),
            Self.item("launches", "6", page: 1, author: "KSC", pageURL: "https://example.com/launch/6", [Self.stored("small", 6)]),
        ]
        let html = ContactSheet.html(Self.manifest(items))
        #expect(Self.figure("1", in: html).contains(
            "<p class=\"cr\" title=\"Pixabay image by Josch&lt;13&gt;\"><a href=\"https://pixabay.com/photos/flower-195893/\" rel=\"noopener noreferrer\">Pixabay image by Josch&lt;13&gt;</a></p>"))
        #expect(Self.figure("2", in: html).contains("<p class=\"cr\" title=\"Pixabay image by Mia\">Pixabay image by Mia</p>"))
        #expect(Self.figure("3", in: html).contains("<p class=\"cr\" title=\"Pixabay image by Leo\">Pixabay image by Leo</p>"))
        #expect(Self.figure("4", in: html).contains(
            "<a href=\"http://pixabay.com/p/4&quot;onclick=&quot;x\" rel=\"noopener noreferrer\">Pixabay image</a>"))
        #expect(Self.figure("5", in: html).contains("<p class=\"cr\" title=\"Pixabay image by Ann\">Pixabay image by Ann</p>"))
        // Other sources get no credit line, and their page URL is no link.
        #expect(!Self.figure("6", in: html).contains("class=\"cr\""))
        #expect(Self.figure("6", in: html).contains("<p class=\"f\">KSC · 12.1 KiB · 150×99</p>"))
        // Nothing else from the feed becomes a link: every href is the page's own, a cache
        // file, or a Pixabay page URL that is http(s).
        let own: Set<String> = ["manifest.json", "https://pixabay.com/"]
        for href in Self.values(of: "href", in: html) {
            // The filter's own fragment, alone or on a sheet page's link.
            let page = String(href.prefix { $0 != "#" })
            let allowed = own.contains(href) || FileHandle.isSheetPage(href) || HTMLText.isSafeRelativePath(href)
                || ((href.hasSuffix("#problems") || href == "#") && (page.isEmpty || FileHandle.isSheetPage(page)))
                || href == "https://pixabay.com/photos/flower-195893/" || href == "http://pixabay.com/p/4&quot;onclick=&quot;x"
            #expect(allowed, "\(href)")
        }
        #expect(!html.contains("href=\"javascript") && !html.contains("href=\"file:") && !html.contains("example.com/launch/6\""))
    }

    @Test func theHeaderCreditsPixabayWhenAPixabaySourceIsShown() {
        let credit = "Images from <a href=\"https://pixabay.com/\" rel=\"noopener noreferrer\">Pixabay</a>"
        let pixabay = ContactSheet.html(Self.manifest([Self.item("pixabay", "1", page: 1, [Self.stored("preview", 1)])]))
        #expect(pixabay.contains(credit))
        let launches = ContactSheet.html(Self.manifest([Self.item("launches", "1", page: 1, [Self.stored("small", 1)])]))
        #expect(!launches.contains(credit))
        #expect(!launches.contains("class=\"cr\""))
        // A Pixabay source with its own name (the run records each source's type).
        let named = Self.manifest([Self.item("flowers", "1", page: 1, author: "U", [Self.stored("preview", 1)])], options: ["flowers.type": "pixabay"])
        let html = ContactSheet.html(named)
        #expect(html.contains(credit))
        #expect(Self.figure("1", in: html).contains(">Pixabay image by U</p>"))
        let other = Self.manifest([Self.item("flowers", "1", page: 1, [Self.stored("preview", 1)])], options: ["flowers.type": "array"])
        #expect(!ContactSheet.html(other).contains(credit))
    }

    @Test func allFeedTextIsEscaped() {
        let evil = "<script>alert('x')</script>\u{1B}[2J & \"q\""
        let item = Self.item(
            "pix<a>", "1\"><b>", page: 1, title: evil, author: "<img src=x onerror=alert(1)>", error: "<b>bad</b>",
            [ImageRecord(variant: "<i>v</i>", url: "javascript:alert('u')", status: .rejected, error: "<u>no</u>"),
             ImageRecord(variant: "w\"x", url: "https://h/x", status: .downloaded, file: "../../etc/passwd")])
        let html = ContactSheet.html(Self.manifest([item]))
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        #expect(!html.contains("\u{1B}"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("pix&lt;a&gt;"))
        #expect(html.contains("#1&quot;&gt;&lt;b&gt;"))
        #expect(html.contains("&lt;i&gt;v&lt;/i&gt; rejected"))
        #expect(html.contains("&lt;b&gt;bad&lt;/b&gt;"))
        #expect(html.contains("javascript:alert(&#39;u&#39;)"))
        #expect(!html.contains("<i>") && !html.contains("<u>") && !html.contains("<b>bad"))
        #expect(Self.values(of: "src", in: html).isEmpty)  // the unsafe path is neither shown nor linked
        #expect(!html.contains("etc/passwd\""))
        #expect(!html.contains("href=\"javascript"))
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
        let html = ContactSheet.html(.empty)
        #expect(html.contains("No run recorded."))
        #expect(html.contains("lists no items yet"))
        #expect(!html.contains("Pixabay"))
    }

    /// A feed page's groups: the newest listing, then an older one's items that no later
    /// listing has, headed "earlier listing"; a group whose items all moved is not shown.
    @Test func feedPagesHoldTheirListingsNewestFirst() async throws {
        let backend = Backends.memory()
        let old = Self.runStart.addingTimeInterval(-86_400)
        let items = [
            Self.item("pixabay", "1", page: 1, seen: old, [Self.stored("preview", 1)]),
            Self.item("pixabay", "2", page: 1, seen: old, [Self.stored("preview", 2)]),
            Self.item("pixabay", "3", page: 1, [Self.stored("preview", 3)]),
            Self.item("pixabay", "4", page: 2, [Self.stored("preview", 4)]),
        ]
        let repository = try await SheetFixture.archive(Self.manifest(items), in: backend)
        let pages = ContactSheet.feedPages(repository.table)
        #expect(pages.map(\.page) == [1, 2])
        #expect(pages[0].groups.count == 2)
        #expect(pages[0].groups[0].lastListed > pages[0].groups[1].lastListed)
        #expect(pages.map(\.items) == [3, 1])
        try await SheetFixture.write(repository, run: Self.manifest(items).run, backend: backend)
        let html = try #require(try await SheetFixture.pages(backend)["index-pixabay-p1.html"])
        #expect(SheetFixture.ids(html) == ["3", "1", "2"])
        #expect(html.contains("<h3>listing first listed 2024-05-01 12:00:00Z <small>1 item</small></h3>"))
        #expect(html.contains("<h3 class=\"earlier\">earlier listing, first listed 2024-04-30 12:00:00Z <small>2 items no later listing of the page has</small></h3>"))
        #expect(html.contains("<h2>pixabay page 1 <small>3 items</small></h2>"))
    }

    /// 10,000 items on one feed page: parts of at most 200 items, each under a kilobyte of
    /// markup an item, every item once and in id order.
    @Test func tenThousandItemsOnOneFeedPageMakeBoundedParts() {
        let items = (0..<10_000).map { index in
            Self.item("pixabay", String(index), page: 1, title: "tag one, tag two, tag \(index)",
                      [index % 50 == 0 ? Self.failed("preview") : Self.stored("preview", index)])
        }
        let pages = ContactSheet.pages(Self.manifest(items))
        #expect(pages.count == 1 + 50)
        #expect(pages[1].name == "index-pixabay-p1.html" && pages[2].name == "index-pixabay-p1-2.html")
        #expect(pages.last?.name == "index-pixabay-p1-50.html")
        var ids: [String] = []
        for page in pages.dropFirst() {
            let shown = SheetFixture.ids(page.html)
            #expect(shown.count == 200)
            #expect(page.html.utf8.count < 200 * 900 + 8000)
            ids += shown
        }
        #expect(ids == (0..<10_000).map(String.init))
        #expect(pages[2].html.contains("(continued)"))
        let html = ContactSheet.html(Self.manifest(Array(items.prefix(100))))
        #expect(html.split(separator: "loading=\"lazy\"", omittingEmptySubsequences: false).count - 1 == Self.values(of: "src", in: html).count)
    }
}

/// What the sheet says must be true: which items the last run did not list, the credit line,
/// counts in words, the pages a source lost.
extension ContactSheetTests {
    /// Items' `lastSeen` is written in whole seconds, the run's start with milliseconds: an item
    /// the run listed is seen in the second the run started, and is not faded.
    @Test func itemsAreComparedWithTheRunAtTheManifestsPrecision() async throws {
        let items = [
            Self.item("pixabay", "1", page: 1, seen: Self.runStart, [Self.stored("preview", 1)]),
            Self.item("pixabay", "2", page: 1, seen: Self.runStart.addingTimeInterval(-1), [Self.stored("preview", 2)]),
        ]
        var manifest = Self.manifest(items)
        manifest.run?.startedAt = Self.runStart.addingTimeInterval(0.731)
        let html = ContactSheet.html(manifest)
        #expect(html.contains("(1 not listed by the last run, shown faded)"))
        #expect(!Self.figure("1", in: html).contains(" old\""))
        #expect(Self.figure("2", in: html).contains(" old\""))
        // The same pages when written from an archive of the manifest.
        let backend = Backends.memory()
        let repository = try await SheetFixture.archive(manifest, in: backend)
        try await SheetFixture.write(repository, run: manifest.run, backend: backend)
        #expect(try await SheetFixture.pages(backend) == SheetFixture.expected(manifest))
        // Every item listed: nothing faded, not even the note.
        var all = Self.manifest([items[0]])
        all.run?.startedAt = Self.runStart.addingTimeInterval(0.999)
        #expect(!ContactSheet.html(all).contains("shown faded"))
        #expect(!ContactSheet.html(all).contains(" old\""))
    }

    /// A merge's items were listed by the shards' runs, which started before the merge.
    @Test func aMergeListsWhatItsPartsListed() {
        var record = RunRecord(startedAt: Self.runStart.addingTimeInterval(600.5))
        let parts = [Self.runStart.addingTimeInterval(0.4), Self.runStart.addingTimeInterval(30.2), nil]
        record.merge = .init(shards: 3, complete: false, parts: parts, reference: nil, problems: nil)
        #expect(record.listedSince == Self.runStart)
        #expect(record.listed(Self.item("a", "1", page: 1, seen: Self.runStart, [])))
        #expect(!record.listed(Self.item("a", "2", page: 1, seen: Self.runStart.addingTimeInterval(-0.5), [])))
        #expect(!record.listed(ManifestItem(source: "a", id: "3", page: 1)))  // never seen
        #expect(RunRecord(startedAt: Self.runStart.addingTimeInterval(0.9)).listedSince == Self.runStart)
    }

    /// However long the user's name or the title, "Pixabay" leads the credit line: a cut (`…` in
    /// the text, an ellipsis at the tile's edge) only ever takes the end of the name.
    @Test func theCreditLineNeverLosesPixabay() {
        let long = String(repeating: "Verylongusername ", count: 20)  // 340 characters
        let items = [
            Self.item("pixabay", "1", page: 1, title: String(repeating: "tag, ", count: 200), author: long,
                      pageURL: "https://pixabay.com/photos/x-1/", [Self.stored("preview", 1)]),
            Self.item("pixabay", "2", page: 1, author: long, [Self.stored("preview", 2)]),
            Self.item("pixabay", "3", page: 1, author: String(repeating: "é", count: 300), [Self.stored("preview", 3)]),
        ]
        let html = ContactSheet.html(Self.manifest(items))
        for id in ["1", "2", "3"] {
            let figure = Self.figure(id, in: html)
            let start = figure.firstRange(of: "<p class=\"cr\"")!.lowerBound
            let end = figure[start...].firstRange(of: "</p>")!.upperBound
            let shown = String(figure[start..<end]).replacing(/<[^>]*>/, with: "")
            #expect(shown.hasPrefix("Pixabay image by "), "\(shown.prefix(40))")
            #expect(shown.hasSuffix("…"), "\(shown.suffix(20))")
            #expect(shown.count <= "Pixabay image by ".count + 61)
        }
        // The whole name stays in the title attribute.
        #expect(Self.figure("2", in: html).contains("title=\"Pixabay image by \(long)\""))
        // The style cuts lines at their end only, and never the credit or the facts line (author
        // or site, size, dimensions): they wrap, a long word too.
        #expect(ContactSheet.style.contains("text-overflow:ellipsis"))
        #expect(!ContactSheet.style.contains("direction:rtl"))
        #expect(ContactSheet.style.contains("\n.cr,.f{white-space:normal;overflow-wrap:anywhere}\n"))
    }

    @Test func oneIsSingular() {
        let run = RunRecord(
            startedAt: Self.runStart, counts: ["downloaded": 1],
            sources: [.init(source: "pixabay", pages: 1, items: 1), .init(source: "launches", pages: 2, items: 0)])
        let manifest = Manifest(generatedAt: Self.runStart, run: run, items: [Self.item("pixabay", "1", page: 1, [Self.stored("preview", 1)])])
        let html = ContactSheet.html(manifest)
        #expect(html.contains("<b>pixabay</b>: 1 page, 1 item"))
        #expect(html.contains("<b>launches</b>: 2 pages, 0 items"))
        #expect(html.contains("<b>1 item</b>"))
        #expect(html.contains("holds 1 item;"))
        #expect(html.contains("<h2>pixabay page 1 <small>1 item</small></h2>"))
        #expect(html.contains("<h2><a href=\"index-pixabay-p1.html\">pixabay page 1</a> <small>1 item</small></h2>"))
        #expect(html.contains(": 1 page (1), 1 item</summary>"))
        #expect(html.contains("<small>1 item</small></h3>"))
        #expect(!html.contains(" 1 items") && !html.contains(" 1 pages"))
    }

    /// A feed page lost to an error is on the sheet: how many, and each warning (escaped, the
    /// first 20).
    @Test func pagesLostToAnErrorAreShown() {
        var pixabay = RunRecord.SourceSummary(source: "pixabay", pages: 2, items: 40)
        pixabay.failedPages = 1
        pixabay.warnings = ["page 2: HTTP 500 <b>Internal</b> after 3 tries"]
        var launches = RunRecord.SourceSummary(source: "launches", pages: 30, items: 300)
        launches.failedPages = 25
        launches.warnings = (1...25).map { "page \($0 + 30): HTTP 503" }
        let run = RunRecord(startedAt: Self.runStart, sources: [pixabay, launches])
        let html = ContactSheet.html(Manifest(generatedAt: Self.runStart, run: run, items: []))
        #expect(html.contains("<b>pixabay</b>: 2 pages, 40 items <span class=\"e\">— 1 page lost to an error: its items are missing</span>"))
        #expect(html.contains("<li>page 2: HTTP 500 &lt;b&gt;Internal&lt;/b&gt; after 3 tries</li>"))
        #expect(html.contains("<span class=\"e\">— 25 pages lost to an error: their items are missing</span>"))
        #expect(html.contains("<li>page 50: HTTP 503</li>"))
        #expect(!html.contains("<li>page 51: HTTP 503</li>"))
        #expect(html.contains("<li>and 5 more (the run's log lists them all)</li>"))
        // A source without problems says nothing more.
        let clean = ContactSheet.html(Manifest(generatedAt: Self.runStart, run: RunRecord(
            startedAt: Self.runStart, sources: [.init(source: "pixabay", pages: 2, items: 40)]), items: []))
        #expect(clean.contains("<b>pixabay</b>: 2 pages, 40 items</li>"))
        #expect(!clean.contains("class=\"w\""))
    }
}
