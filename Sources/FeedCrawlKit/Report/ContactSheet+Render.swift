import FoundationEssentials

extension ContactSheet {
    func head() -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="feedcrawl">
        <title>feedcrawl contact sheet \(Self.time(generatedAt))</title>
        <style>\(Self.style)</style>
        </head>
        <body>
        <input type="checkbox" id="pf" class="pf">

        """
    }

    func header(_ outline: Outline) -> String {
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
        out += "<p>The <a href=\"" + linkBase + "manifest.json\">manifest</a> holds \(Self.count(outline.count, "item"))"
        if outline.earlier > 0 { out += " (\(outline.earlier) not listed by the last run, shown faded)" }
        out += "; generated \(Self.time(generatedAt)).</p>\n"
        if outline.groups.contains(where: { pixabaySources.contains($0.source) }) {
            out += "<p class=\"credit\">Images from <a href=\"https://pixabay.com/\" rel=\"noopener noreferrer\">Pixabay</a>, "
            out += "each credited to its user and linked to its page on Pixabay.</p>\n"
        }
        out += "<p><label for=\"pf\" class=\"pfl\">show only items without an image</label></p>\n"
        if !outline.groups.isEmpty {
            out += "<nav>\n"
            for (sourceIndex, group) in outline.groups.enumerated() {
                out += "<p><a href=\"#s\(sourceIndex)\">\(HTMLText.escape(group.source, limit: 80))</a>: pages"
                for page in group.pages { out += " <a href=\"#s\(sourceIndex)p\(page.page)\">\(page.page)</a>" }
                out += "</p>\n"
            }
            out += "</nav>\n"
        }
        out += "</header>\n"
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
            out += facts == 0 ? "<p>" : " · "
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
    /// when it has an http(s) one; text only otherwise. "Pixabay" comes first and the user's name
    /// last, so a line too long for its tile (cut at its end, `text-overflow: ellipsis`) or a
    /// name longer than 60 characters (cut with `…`) never loses "Pixabay"; the `title`
    /// attribute holds the whole line.
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
