import FoundationEssentials
import FeedCrawlSupport

extension ContactSheet {
    /// The document's start up to the toggle, titled `feedcrawl contact sheet` and `title`
    /// (already escaped).
    func head(title: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="feedcrawl">
        <title>feedcrawl contact sheet\(title.isEmpty ? "" : " — " + title)</title>
        <style>\(Self.style)</style>
        </head>
        <body>
        <i id="problems" class="pt"></i>

        """
    }

    /// The end of every page.
    static let tail = "</main>\n</body>\n</html>\n"

    /// `index.html`'s header: the last run's time, duration, counts by status, each source's
    /// pages and items (and why a source could not be crawled, the pages lost to an error, its
    /// warnings), how many items the archive holds (`items`, `earlier` of them not listed by
    /// the last run), the Pixabay note when a Pixabay source is shown, the toggle, then the
    /// table of contents (`toc`).
    func indexHeader(_ pages: [FeedPage], items: Int, earlier: Int, generatedAt: Date) -> String {
        var out = "<header>\n<h1>feedcrawl contact sheet</h1>\n"
        if let run {
            let seconds = run.finishedAt.map { ($0.timeIntervalSince(run.startedAt) * 10).rounded() / 10 }
            let total = run.counts.values.reduce(0, +)
            out += "<p class=\"run\">Last run \(Self.time(run.startedAt))"
            if let seconds { out += " (\(seconds) s)" }
            out += ": <b>\(Self.count(total, "item"))</b>"
            let counts = ItemStatus.allCases.compactMap { status -> String? in
                guard let count = run.counts[status.rawValue], count > 0 else { return nil }
                return "<span class=\"c st-\(status.rawValue)\">\(count) \(status.rawValue)</span>"
            }
            if !counts.isEmpty { out += " — " + counts.joined(separator: " ") }
            out += "; \(ByteSize.format(run.bytes)) downloaded"
            if let status = run.exitStatus { out += "; exit status \(status)" }
            out += ".</p>\n"
            if !run.sources.isEmpty {
                out += "<ul class=\"sources\">\n"
                for source in run.sources {
                    out += "<li><b>\(HTMLText.escape(source.source, limit: 80))</b>: "
                    out += Self.count(source.pages, "page") + ", " + Self.count(source.items, "item")
                    if let error = source.error { out += " <span class=\"e\">— could not be crawled: \(HTMLText.escape(error))</span>" }
                    if let lost = source.failedPages, lost > 0 {
                        out += " <span class=\"e\">— \(Self.count(lost, "page")) lost to an error"
                        out += lost == 1 ? ": its items are missing</span>" : ": their items are missing</span>"
                    }
                    warnings(source.warnings ?? [], into: &out)
                    out += "</li>\n"
                }
                out += "</ul>\n"
            }
        } else {
            out += "<p class=\"run\">No run recorded.</p>\n"
        }
        if let forgot {
            out += "<p class=\"forgot\">Last forget \(Self.time(forgot.at)) (" + HTMLText.escape(forgot.rule, limit: 200)
                + "): " + HTMLText.escape(forgot.itemsText, limit: 400) + " left the archive, and "
                + Self.count(forgot.files, "image file") + " (\(ByteSize.format(forgot.bytes))) no kept item named.</p>\n"
        }
        out += "<p>The <a href=\"" + linkBase + "manifest.json\">manifest</a> holds \(Self.count(items, "item"))"
        if earlier > 0 { out += " (\(earlier) not listed by the last run, shown faded)" }
        out += "; generated \(Self.time(generatedAt)).</p>\n"
        if pages.contains(where: { pixabaySources.contains($0.source) }) { out += Self.pixabayNote }
        out += Self.filterToggle
        out += problemPages(pages)
        out += toc(pages)
        out += "</header>\n"
        return out
    }

    /// The filter "only items without an image": the URL fragment `#problems` turns it on (the
    /// style hides the items with an image), so it survives a reload, a bookmark, and every
    /// sheet page's previous / next / part links, which carry it on (`link`).
    static let filterToggle = "<p><a href=\"#problems\" class=\"pfl\">show only items without an image</a>"
        + "<a href=\"#\" class=\"pfo\">showing only items without an image: show every item</a></p>\n"

    /// A link to `href` reading `label`: one as it is, and one that keeps the filter on
    /// (`#problems`); the style shows the one that matches the filter.
    static func link(_ href: String, _ label: String, rel: String? = nil) -> String {
        let relation = rel.map { " rel=\"\($0)\"" } ?? ""
        return "<a class=\"na\" href=\"\(href)\"\(relation)>\(label)</a><a class=\"np\" href=\"\(href)#problems\"\(relation)>\(label)</a>"
    }

    /// Most sheet pages `problemPages` links.
    static let problemPageLinks = 200

    /// Where the items without an image are: the feed pages whose live items include failed,
    /// rejected, cancelled or no-image ones (by the group table's counts), each linked with
    /// the filter on and its count, at most `problemPageLinks` of them; nothing when none has.
    func problemPages(_ pages: [FeedPage]) -> String {
        var links: [String] = []
        var total = 0
        var shown = 0
        for page in pages {
            let count = page.groups.reduce(0) { sum, group in
                sum + group.counts.reduce(0) { $0 + ((ItemStatus(rawValue: $1.key)?.hasImage ?? true) ? 0 : $1.value) }
            }
            guard count > 0 else { continue }
            total += count
            shown += 1
            guard links.count < Self.problemPageLinks else { continue }
            links.append("<a href=\"\(page.name)#problems\">\(HTMLText.escape(page.source, limit: 80)) \(page.page)</a> (\(count))")
        }
        guard total > 0 else { return "" }
        return "<p class=\"pp\">\(Self.count(total, "item")) without an image, on \(Self.count(shown, "feed page")): "
            + links.joined(separator: ", ") + (shown > links.count ? ", …" : "") + "</p>\n"
    }

    /// "Images from Pixabay", on `index.html` and on every page of a Pixabay source.
    static let pixabayNote = "<p class=\"credit\">Images from <a href=\"https://pixabay.com/\" rel=\"noopener noreferrer\">Pixabay</a>, "
        + "each credited to its user and linked to its page on Pixabay.</p>\n"

    /// Most bytes of page links the table of contents holds (1 MiB); past them, a source is
    /// listed by its page ranges, its first page linked (every sheet page links its neighbours).
    static let tocLinkBytes = 1 << 20

    /// Most page ranges a source's summary names; the rest are `…`.
    static let tocRanges = 12

    /// Sources of at most this many feed pages have their list of pages open.
    static let tocOpenPages = 40

    /// The table of contents: per source one `<details>`, its summary naming the source (linked
    /// to its first sheet page), its feed pages as ranges (`1–30, 32, 35–40`) and items; inside,
    /// a link to every feed page's sheet page (open for a source of at most `tocOpenPages`
    /// pages). Its page links stay under `tocLinkBytes`: a source past them keeps its summary.
    func toc(_ pages: [FeedPage]) -> String {
        guard !pages.isEmpty else { return "" }
        var out = "<nav class=\"toc\">\n"
        var linkBytes = 0
        var start = 0
        while start < pages.count {
            var end = start
            while end < pages.count, pages[end].source == pages[start].source { end += 1 }
            let source = pages[start..<end]
            let items = source.reduce(0) { $0 + $1.items }
            out += source.count <= Self.tocOpenPages ? "<details open>" : "<details>"
            out += "<summary><a href=\"\(pages[start].name)\">\(HTMLText.escape(pages[start].source, limit: 80))</a>: "
            out += Self.count(source.count, "page") + " (" + Self.ranges(source.map(\.page)) + "), " + Self.count(items, "item")
            out += "</summary>"
            var links = "<p>"
            for page in source { links += "<a href=\"\(page.name)\">\(page.page)</a> " }
            links += "</p>"
            if linkBytes + links.utf8.count <= Self.tocLinkBytes {
                out += links
                linkBytes += links.utf8.count
            } else {
                out += "<p>Each page links the next: start at <a href=\"\(pages[start].name)\">page \(pages[start].page)</a>.</p>"
            }
            out += "</details>\n"
            start = end
        }
        out += "</nav>\n"
        return out
    }

    /// Ascending page numbers as ranges, `1–30, 32, 35–40`, at most `tocRanges` of them, then `…`.
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < numbers.count {
            var end = index
            while end + 1 < numbers.count, numbers[end + 1] == numbers[end] + 1 { end += 1 }
            if parts.count == tocRanges {
                parts.append("…")
                break
            }
            parts.append(end == index ? "\(numbers[index])" : "\(numbers[index])–\(numbers[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }

    /// The links of a sheet page: the contact sheet (`index.html`, its table of contents), the
    /// feed page before (`previous`, its first part) and after (`next`), and the other parts of
    /// this feed page (the current one not a link).
    func pageNav(_ page: FeedPage, part: Int, of parts: Int, previous: FeedPage?, next: FeedPage?) -> String {
        var out = "<nav class=\"pg\">" + Self.link(Self.fileName, "contact sheet") + " · "
        func label(_ other: FeedPage) -> String {
            (other.source == page.source ? "" : HTMLText.escape(other.source, limit: 80) + " ") + "page \(other.page)"
        }
        if part > 1 {
            out += Self.link(Self.pageName(source: page.source, page: page.page, part: part - 1), "previous", rel: "prev")
        } else if let previous {
            out += Self.link(previous.name, "previous: \(label(previous))", rel: "prev")
        } else {
            out += "previous"
        }
        if parts > 1 {
            out += " · parts"
            for n in 1...parts {
                out += n == part ? " <b>\(n)</b>" : " " + Self.link(Self.pageName(source: page.source, page: page.page, part: n), "\(n)")
            }
        }
        out += " · "
        if part < parts {
            out += Self.link(Self.pageName(source: page.source, page: page.page, part: part + 1), "next", rel: "next")
        } else if let next {
            out += Self.link(next.name, "next: \(label(next))", rel: "next")
        } else {
            out += "next"
        }
        out += "</nav>\n"
        return out
    }

    /// `<h2>`: the source and feed page, with its items.
    private func pageHeading(_ page: FeedPage, link: Bool) -> String {
        let title = HTMLText.escape(page.source, limit: 80) + " page \(page.page)"
        return "<h2>" + (link ? "<a href=\"\(page.name)\">\(title)</a>" : title) + " <small>\(Self.count(page.items, "item"))</small></h2>\n"
    }

    /// The tiles of `tiles` from `range` (positions in `tiles.flat`), each group headed: the
    /// newest listing with when it was first listed, an older one as "earlier listing"; a group
    /// that goes on from the part before says "(continued)".
    private func body(_ tiles: Tiles, flat: [(group: Int, position: Int)], range: Range<Int>, into out: inout String) {
        var group = -1
        for position in range {
            let (index, at) = flat[position]
            if index != group {
                if group >= 0 { out += "</div>\n" }
                group = index
                let entry = tiles.groups[index].entry
                let listed = Self.time(Date(timeIntervalSince1970: Double(entry.firstListed / 1000)))
                let continued = position > 0 && flat[position - 1].group == index && position == range.lowerBound
                let count = Self.count(entry.liveItems, "item")
                if tiles.groups[index].earlier {
                    out += "<h3 class=\"earlier\">earlier listing, first listed \(listed)\(continued ? " (continued)" : "")"
                    out += " <small>\(count) no later listing of the page has</small></h3>\n"
                } else {
                    out += "<h3>listing first listed \(listed)\(continued ? " (continued)" : "") <small>\(count)</small></h3>\n"
                }
                out += "<div class=\"grid\">\n"
            }
            let kept = tiles.groups[index]
            out += kept.tiles.isEmpty ? tile(kept.items[at]) : kept.tiles[at]
        }
        if group >= 0 { out += "</div>\n" }
    }

    /// Part `part` (1-based) of the sheet page of `tiles`, whose parts hold `parts` tiles each,
    /// between the feed pages `previous` and `next`.
    func render(_ tiles: Tiles, part: Int, parts: [Int], previous: FeedPage?, next: FeedPage?) -> String {
        let page = tiles.page
        let flat = tiles.flat
        let start = parts.prefix(part - 1).reduce(0, +)
        let range = start..<min(flat.count, start + (part <= parts.count ? parts[part - 1] : 0))
        let which = parts.count > 1 ? ", part \(part) of \(parts.count)" : ""
        let title = HTMLText.escape(page.source, limit: 80) + " page \(page.page)" + which
        var out = head(title: title)
        let nav = pageNav(page, part: part, of: parts.count, previous: previous, next: next)
        out += "<header>\n<h1>feedcrawl contact sheet <small>\(title)</small></h1>\n"
        if pixabaySources.contains(page.source) { out += Self.pixabayNote }
        out += Self.filterToggle
        out += nav + "</header>\n<main>\n<section>\n" + pageHeading(page, link: false)
        body(tiles, flat: flat, range: range, into: &out)
        out += "</section>\n<footer>" + nav + "</footer>\n" + Self.tail
        return out
    }

    /// `index.html`: the header (`indexHeader`), then as many tiles of the first sheet page
    /// (`first`) as fit under its limits with the header counted, linking that page for the rest.
    func renderIndex(_ pages: [FeedPage], first: Tiles?, generatedAt: Date) -> String {
        let items = pages.reduce(0) { $0 + $1.items }
        let earlier = pages.reduce(0) { sum, page in sum + page.groups.filter(isFaded).reduce(0) { $0 + $1.liveItems } }
        var out = head(title: Self.time(generatedAt))
        out += indexHeader(pages, items: items, earlier: earlier, generatedAt: generatedAt)
        out += "<main>\n"
        if let first {
            let flat = first.flat
            let reserve = out.utf8.count + 1024
            let shown = Self.paging(sizes: first.sizes, itemsPerPage: pageItems, bytesPerPage: pageBytes, firstPageReserve: reserve)
            var count = shown[0]
            // Nothing fits beside a very long table of contents: the first sheet page has them.
            if reserve >= pageBytes { count = 0 }
            out += "<section>\n" + pageHeading(first.page, link: true)
            body(first, flat: flat, range: 0..<count, into: &out)
            if count < flat.count {
                out += "<p class=\"more\">\(Self.count(flat.count - count, "more item")) of this page on "
                out += "<a href=\"\(first.page.name)\">its sheet page</a>.</p>\n"
            }
            out += "</section>\n"
        } else {
            out += "<p class=\"empty\">The manifest lists no items yet.</p>\n"
        }
        out += Self.tail
        return out
    }

    /// Most warnings a source lists on the sheet; the rest are counted.
    static let warningsShown = 20

    /// A source's warnings (pages lost to an error, partial data, a repeated cursor) as a list,
    /// the first `warningsShown`; nothing when there are none.
    private func warnings(_ warnings: [String], into out: inout String) {
        guard !warnings.isEmpty else { return }
        out += "\n<ul class=\"w\">\n"
        for warning in warnings.prefix(Self.warningsShown) {
            out += "<li>" + HTMLText.escape(warning, limit: 300) + "</li>\n"
        }
        if warnings.count > Self.warningsShown {
            out += "<li>and \(warnings.count - Self.warningsShown) more (the run's log lists them all)</li>\n"
        }
        out += "</ul>"
    }

    /// "1 page", "2 pages", "0 items".
    static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)" + (n == 1 ? "" : "s")
    }

    /// Appends one item's `<figure>` to `out`, piece by piece (this runs for every item).
    func figure(_ item: ManifestItem, into out: inout String) {
        let status = item.status
        let tile = item.firstStoredImage.flatMap { HTMLText.isSafeRelativePath($0.file ?? "") ? $0 : nil }
        out.reserveCapacity(out.utf8.count + 640 + 2 * item.title.utf8.count)
        out += "<figure class=\"st-"
        out += status.rawValue
        if tile != nil { out += " ok" }
        if let run, !run.listed(item) { out += " old" }
        out += "\">"
        if let tile, let file = tile.file {
            out += "<a href=\""
            out += linkBase
            out += file
            out += "\"><img src=\""
            out += linkBase
            out += file
            out += "\" loading=\"lazy\" decoding=\"async\" alt=\"\"></a>"
        } else {
            out += "<div class=\"ph\">"
            out += status.rawValue
            out += "</div>"
        }
        let title = item.title.isEmpty ? "(untitled)" : item.title
        out += "<figcaption><p class=\"t\" title=\""
        out += HTMLText.escape(title)
        out += "\">"
        out += HTMLText.escape(title, limit: 120)
        out += "</p>"
        if pixabaySources.contains(item.source) {
            credit(item, into: &out)
        }
        var facts = 0
        func fact(_ text: String) {
            out += facts == 0 ? "<p class=\"f\">" : " · "
            out += text
            facts += 1
        }
        if !pixabaySources.contains(item.source), let who = item.author ?? item.details?.site, !who.isEmpty {
            fact(HTMLText.escape(who, limit: 60))
        }
        if let tile {
            if let bytes = tile.bytes { fact(ByteSize.format(bytes)) }
            if let width = tile.width, let height = tile.height { fact("\(width)×\(height)") }
        }
        if facts > 0 { out += "</p>" }
        // The other variants on disk, linked; the rest named with their status.
        let others = item.images.filter { $0.variant != tile?.variant }
        if !others.isEmpty {
            out += "<p class=\"v\">"
            for (index, image) in others.enumerated() {
                if index > 0 { out += " · " }
                let name = HTMLText.escape(image.variant, limit: 20)
                if image.status.hasImage, let file = image.file, HTMLText.isSafeRelativePath(file) {
                    out += "<a href=\"" + linkBase + file + "\">" + name + "</a>"
                } else {
                    out += name + " " + image.status.rawValue
                }
            }
            out += "</p>"
        }
        out += "<p><span class=\"st\">"
        out += status.rawValue
        out += "</span> <span class=\"id\">#"
        out += HTMLText.escape(item.id, limit: 40)
        out += "</span></p>"
        if tile == nil || !status.hasImage {
            if let error = item.error ?? item.images.first(where: { !$0.status.hasImage })?.error {
                out += "<p class=\"e\">"
                out += HTMLText.escape(error, limit: 200)
                out += "</p>"
            }
            if let url = item.images.first(where: { !$0.status.hasImage })?.url {
                out += "<p class=\"u\">"
                out += HTMLText.escape(url, limit: 200)
                out += "</p>"
            }
        }
        out += "</figcaption></figure>\n"
    }

    /// "Pixabay image by USER" ("Pixabay image" without a user), linking the item's Pixabay page
    /// when it has an http(s) one; text only otherwise. The line wraps (class `cr`: never cut at
    /// the tile's edge, at any width); a name longer than 60 characters is cut with `…`, after
    /// "Pixabay", which comes first; the `title` attribute holds the whole line.
    private func credit(_ item: ManifestItem, into out: inout String) {
        let text = item.author.map { "Pixabay image by " + HTMLText.escape($0, limit: 60) } ?? "Pixabay image"
        out += "<p class=\"cr\" title=\""
        out += item.author.map { "Pixabay image by " + HTMLText.escape($0) } ?? "Pixabay image"
        out += "\">"
        if let page = item.pageURL, URLCheck.isHTTP(page) {
            out += "<a href=\""
            out += HTMLText.escape(page, limit: URLCheck.maxLength)
            out += "\" rel=\"noopener noreferrer\">"
            out += text
            out += "</a>"
        } else {
            out += text
        }
        out += "</p>"
    }

    /// `2024-05-01 12:00:00Z`.
    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateTimeSeparator: .space))
    }
}
