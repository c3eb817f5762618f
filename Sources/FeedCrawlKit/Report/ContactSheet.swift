import FoundationEssentials

/// `OUT/index.html`: a self-contained contact sheet of a manifest. Cached thumbnails in a grid,
/// grouped by source and page, each with its title, author or site, size, dimensions and status;
/// items without a usable image show why. A header holds the run's counts.
///
/// No network, no JavaScript: inline CSS, images by relative links into `cache/`, lazy-loaded so
/// 10,000 items stay usable. All feed text is HTML-escaped; feed URLs are shown as text, never
/// used as links.
public struct ContactSheet {
    /// The file name inside OUT: `index.html`.
    public static let fileName = "index.html"

    /// The manifest shown.
    public var manifest: Manifest
    /// Whether a path relative to OUT names an existing file; items whose file is missing get
    /// no `<img>`. Default: always true.
    public var fileExists: (String) -> Bool

    /// A sheet for `manifest`; see `fileExists`.
    public init(manifest: Manifest, fileExists: @escaping (String) -> Bool = { _ in true }) {
        self.manifest = manifest
        self.fileExists = fileExists
    }

    /// The whole page as one string (for tests and small manifests; `write` streams instead).
    public func html() -> String {
        var out = ""
        render { out += $0 }
        return out
    }

    /// Writes `OUT/index.html` for `manifest` atomically (temporary file, rename), checking each
    /// cached file on disk. Not fsynced: the sheet can always be rebuilt from the manifest.
    public static func write(_ manifest: Manifest, outDirectory: String) throws(FileSystemError) {
        let layout = CacheLayout(outDirectory: outDirectory)
        let sheet = ContactSheet(manifest: manifest) { FileIO.exists(layout.absolutePath($0)) }
        let writer = try ChunkedFileWriter(path: outDirectory + "/" + fileName)
        sheet.render { writer.append($0) }
        try writer.commit()
    }

    /// Writes `OUT/index.html` from items already in `ManifestItem.stableOrder`, read once each in
    /// order (they may be decoded on demand), with `outline` computed beforehand; see
    /// `write(_:outDirectory:)`.
    static func write<Items: Sequence<ManifestItem>>(
        generatedAt: Date, run: RunRecord?, sortedItems: Items, outline: Outline, outDirectory: String,
        fileExists: @escaping (String) -> Bool
    ) throws(FileSystemError) {
        let writer = try ChunkedFileWriter(path: outDirectory + "/" + fileName)
        var sheet = ContactSheet(manifest: Manifest(generatedAt: generatedAt), fileExists: fileExists)
        sheet.manifest.run = run
        sheet.render(sortedItems: sortedItems, outline: outline) { writer.append($0) }
        try writer.commit()
    }

    /// Renders the page in pieces, in order.
    public func render(_ emit: (String) -> Void) {
        let items = manifest.sortedItems
        let outline = Outline(
            keys: items.lazy.map { ($0.source, $0.page) },
            earlier: manifest.run.map { run in items.filter { ($0.lastSeen ?? .distantPast) < run.startedAt }.count } ?? 0)
        render(sortedItems: items, outline: outline, emit)
    }

    /// Renders `sortedItems` (whose sources and pages `outline` describes) in pieces, in order.
    func render<Items: Sequence<ManifestItem>>(sortedItems: Items, outline: Outline, _ emit: (String) -> Void) {
        emit(head())
        emit(header(outline))
        emit("<main>\n")
        var iterator = sortedItems.makeIterator()
        var figureBuffer = ""
        for (sourceIndex, group) in outline.groups.enumerated() {
            let count = group.pages.reduce(0) { $0 + $1.count }
            emit("<section id=\"s\(sourceIndex)\"><h2>\(HTMLText.escape(group.source, limit: 80)) <small>\(count) items</small></h2>\n")
            for page in group.pages {
                emit("<h3 id=\"s\(sourceIndex)p\(page.page)\">page \(page.page) <small>\(page.count) items</small></h3>\n<div class=\"grid\">\n")
                for _ in 0..<page.count {
                    guard let item = iterator.next() else { break }
                    figureBuffer.removeAll(keepingCapacity: true)
                    figure(item, into: &figureBuffer)
                    emit(figureBuffer)
                }
                emit("</div>\n")
            }
            emit("</section>\n")
        }
        if outline.count == 0 { emit("<p class=\"empty\">The manifest lists no items yet.</p>\n") }
        emit("</main>\n</body>\n</html>\n")
    }

    struct PageGroup: Equatable {
        var page: Int
        var count: Int
    }

    struct SourceGroup: Equatable {
        var source: String
        var pages: [PageGroup]
    }

    /// What the header and the section headings need to know before the first figure: the
    /// consecutive runs of (source, page) in the stably ordered items, how many items there are,
    /// and how many the last run did not list.
    struct Outline: Equatable {
        var groups: [SourceGroup] = []
        var count = 0
        var earlier = 0

        init<Keys: Sequence>(keys: Keys, earlier: Int) where Keys.Element == (String, Int) {
            for (source, page) in keys {
                count += 1
                if groups.last?.source == source {
                    let last = groups.count - 1
                    if groups[last].pages.last?.page == page {
                        groups[last].pages[groups[last].pages.count - 1].count += 1
                    } else {
                        groups[last].pages.append(PageGroup(page: page, count: 1))
                    }
                } else {
                    groups.append(SourceGroup(source: source, pages: [PageGroup(page: page, count: 1)]))
                }
            }
            self.earlier = earlier
        }
    }

    func head() -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="feedcrawl">
        <title>feedcrawl contact sheet \(Self.time(manifest.generatedAt))</title>
        <style>\(Self.style)</style>
        </head>
        <body>
        <input type="checkbox" id="pf" class="pf">

        """
    }

    func header(_ outline: Outline) -> String {
        let groups = outline.groups
        var out = "<header>\n<h1>feedcrawl contact sheet</h1>\n"
        if let run = manifest.run {
            let seconds = run.finishedAt.map { ($0.timeIntervalSince(run.startedAt) * 10).rounded() / 10 }
            let total = run.counts.values.reduce(0, +)
            out += "<p class=\"run\">Last run \(Self.time(run.startedAt))"
            if let seconds { out += " (\(seconds) s)" }
            out += ": <b>\(total) items</b>"
            let counts = ItemStatus.allCases.compactMap { status -> String? in
                guard let count = run.counts[status.rawValue], count > 0 else { return nil }
                return "<span class=\"c \(Self.statusClass(status))\">\(count) \(status.rawValue)</span>"
            }
            if !counts.isEmpty { out += " — " + counts.joined(separator: " ") }
            out += "; \(ByteSize.format(run.bytes)) downloaded"
            if let status = run.exitStatus { out += "; exit status \(status)" }
            out += ".</p>\n"
            if !run.sources.isEmpty {
                out += "<ul class=\"sources\">\n"
                for source in run.sources {
                    out += "<li><b>\(HTMLText.escape(source.source, limit: 80))</b>: \(source.pages) pages, \(source.items) items"
                    if let error = source.error { out += " <span class=\"e\">— could not be crawled: \(HTMLText.escape(error))</span>" }
                    out += "</li>\n"
                }
                out += "</ul>\n"
            }
        } else {
            out += "<p class=\"run\">No run recorded.</p>\n"
        }
        let earlier = outline.earlier
        out += "<p>The <a href=\"manifest.json\">manifest</a> holds \(outline.count) items"
        if earlier > 0 { out += " (\(earlier) not listed by the last run, shown faded)" }
        out += "; generated \(Self.time(manifest.generatedAt)).</p>\n"
        out += "<p><label for=\"pf\" class=\"pfl\">show only items without an image</label></p>\n"
        if !groups.isEmpty {
            out += "<nav>\n"
            for (sourceIndex, group) in groups.enumerated() {
                out += "<p><a href=\"#s\(sourceIndex)\">\(HTMLText.escape(group.source, limit: 80))</a>: pages"
                for page in group.pages { out += " <a href=\"#s\(sourceIndex)p\(page.page)\">\(page.page)</a>" }
                out += "</p>\n"
            }
            out += "</nav>\n"
        }
        out += "</header>\n"
        return out
    }

    /// Appends one item's `<figure>` to `out`, piece by piece (no temporary strings: this runs
    /// for every item of a 20,000-item manifest).
    func figure(_ item: ManifestItem, into out: inout String) {
        let status = item.status
        out.reserveCapacity(out.utf8.count + 512 + 2 * item.title.utf8.count)
        out += "<figure class=\"st-"
        out += status.rawValue
        if status.hasImage { out += " ok" }
        if let run = manifest.run, (item.lastSeen ?? .distantPast) < run.startedAt { out += " old" }
        out += "\">"
        if status.hasImage, let file = item.file, HTMLText.isSafeRelativePath(file), fileExists(file) {
            out += "<a href=\""
            out += file
            out += "\"><img src=\""
            out += file
            out += "\" loading=\"lazy\" decoding=\"async\" alt=\"\"></a>"
        } else {
            out += "<div class=\"ph\">"
            out += status.hasImage ? "file missing" : status.rawValue
            out += "</div>"
        }
        let title = item.title.isEmpty ? "(untitled)" : item.title
        out += "<figcaption><p class=\"t\" title=\""
        out += HTMLText.escape(title)
        out += "\">"
        out += HTMLText.escape(title, limit: 120)
        out += "</p>"
        var facts = 0
        func fact(_ text: String) {
            out += facts == 0 ? "<p>" : " · "
            out += text
            facts += 1
        }
        if let who = item.author ?? item.details?.site, !who.isEmpty { fact(HTMLText.escape(who, limit: 60)) }
        if let bytes = item.bytes { fact(ByteSize.format(bytes)) }
        if let width = item.width, let height = item.height {
            fact(String(width))
            out += "×"
            out += String(height)
        }
        if facts > 0 { out += "</p>" }
        out += "<p><span class=\"st\">"
        out += status.rawValue
        out += "</span> <span class=\"id\">#"
        out += HTMLText.escape(item.id, limit: 40)
        out += "</span></p>"
        if let error = item.error, !status.hasImage {
            out += "<p class=\"e\">"
            out += HTMLText.escape(error, limit: 200)
            out += "</p>"
        }
        if !status.hasImage, let url = item.imageURL {
            out += "<p class=\"u\">"
            out += HTMLText.escape(url, limit: 200)
            out += "</p>"
        }
        out += "</figcaption></figure>\n"
    }

    static func statusClass(_ status: ItemStatus) -> String {
        "st-" + status.rawValue
    }

    /// `2024-05-01 12:00:00Z`.
    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateTimeSeparator: .space))
    }
}
