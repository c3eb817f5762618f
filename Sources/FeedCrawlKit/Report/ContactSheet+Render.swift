import FoundationEssentials
import FeedCrawlSupport

extension ContactSheet {
    /// The document's start up to the toggle, for page `page` of `pages`.
    func head(page: Int, of pages: Int) -> String {
        let which = pages > 1 ? ", page \(page) of \(pages)" : ""
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="feedcrawl">
        <title>feedcrawl contact sheet \(Self.time(generatedAt))\(which)</title>
        <style>\(Self.style)</style>
        </head>
        <body>
        <input type="checkbox" id="pf" class="pf">

        """
    }

    /// The header of page `page` of `pages`: on the first, the last run's counts and sources,
    /// the manifest's, and links to every source and feed page (on the page `starts` says it
    /// starts on); on the others, which items the page holds. Every page of several links the
    /// others (`pager`).
    func header(_ outline: Outline, page: Int, of pages: Int, starts: [String: Int]) -> String {
        var out = "<header>\n<h1>feedcrawl contact sheet" + (page == 1 ? "" : " <small>page \(page) of \(pages)</small>") + "</h1>\n"
        if page == 1, let run {
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
        } else if page == 1 {
            out += "<p class=\"run\">No run recorded.</p>\n"
        }
        out += "<p>The <a href=\"" + linkBase + "manifest.json\">manifest</a> holds \(Self.count(outline.count, "item"))"
        if page == 1, outline.earlier > 0 { out += " (\(outline.earlier) not listed by the last run, shown faded)" }
        out += "; generated \(Self.time(generatedAt))."
        if page > 1 {
            out += " The <a href=\"\(Self.fileName)\">first page</a> has the last run's counts and links to every source and feed page."
        }
        out += "</p>\n"
        credit(outline, into: &out)
        out += "<p><label for=\"pf\" class=\"pfl\">show only items without an image</label></p>\n"
        if pages > 1 { out += pager(page: page, of: pages) }
        if page == 1, !outline.groups.isEmpty {
            out += "<nav>\n"
            for (sourceIndex, group) in outline.groups.enumerated() {
                let anchor = "s\(sourceIndex)"
                out += "<p><a href=\"\(Self.link(anchor, starts))\">\(HTMLText.escape(group.source, limit: 80))</a>: pages"
                for page in group.pages {
                    out += " <a href=\"\(Self.link(anchor + "p\(page.page)", starts))\">\(page.page)</a>"
                }
                out += "</p>\n"
            }
            out += "</nav>\n"
        }
        out += "</header>\n"
        return out
    }

    /// "Images from Pixabay" when a Pixabay source is shown.
    private func credit(_ outline: Outline, into out: inout String) {
        guard outline.groups.contains(where: { pixabaySources.contains($0.source) }) else { return }
        out += "<p class=\"credit\">Images from <a href=\"https://pixabay.com/\" rel=\"noopener noreferrer\">Pixabay</a>, "
        out += "each credited to its user and linked to its page on Pixabay.</p>\n"
    }

    /// `#anchor` on the first page, `index-K.html#anchor` on page K.
    static func link(_ anchor: String, _ starts: [String: Int]) -> String {
        let page = starts[anchor] ?? 1
        return (page == 1 ? "" : fileName(page: page)) + "#" + anchor
    }

    /// Most page numbers the pager of a page after the first lists either side of it; the first
    /// page lists them all.
    static let pagerReach = 10

    /// Links to the other pages of a sheet of several: first, previous, the page numbers (all on
    /// the first page; on the others those within `pagerReach`, the first and the last), next,
    /// last. The current page is not a link.
    func pager(page: Int, of pages: Int) -> String {
        func link(_ target: Int, _ text: String, rel: String = "") -> String {
            target == page ? "<b>\(text)</b>" : "<a href=\"\(Self.fileName(page: target))\"\(rel)>\(text)</a>"
        }
        var out = "<nav class=\"pg\">"
        out += page > 1 ? link(1, "first") + " " + link(page - 1, "previous", rel: " rel=\"prev\"") : "first previous"
        out += " · pages"
        var last = 0
        for n in 1...pages where page == 1 || n == 1 || n == pages || abs(n - page) <= Self.pagerReach {
            if n > last + 1 { out += " …" }
            out += " " + link(n, "\(n)")
            last = n
        }
        out += " · "
        out += page < pages ? link(page + 1, "next", rel: " rel=\"next\"") + " " + link(pages, "last") : "next last"
        out += "</nav>\n"
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
