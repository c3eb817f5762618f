import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// `OUT/index.html`: a self-contained contact sheet of a manifest. One tile per item, grouped by
/// source and page: the item's first image that is on disk, its other stored variants linked,
/// its title, author or site, size, dimensions and status; items without a usable image show
/// why. Pixabay tiles credit Pixabay and the image's user, linking the item's Pixabay page, as
/// Pixabay's API terms ask. A header holds the last run's counts.
///
/// No network, no JavaScript: inline CSS, images by relative links into `cache/`, lazy-loaded.
/// All feed text is HTML-escaped; the only feed URL used as a link is a Pixabay page URL, and
/// only an `http`/`https` one (`rel="noopener noreferrer"`); every other URL is shown as text.
public struct ContactSheet {
    /// The file name inside OUT: `index.html`.
    public static let fileName = "index.html"

    let generatedAt: Date
    let run: RunRecord?
    /// Sources whose items get Pixabay's credit line.
    let pixabaySources: Set<String>

    init(generatedAt: Date, run: RunRecord?) {
        self.generatedAt = generatedAt
        self.run = run
        pixabaySources = Self.pixabaySources(run)
    }

    /// The whole page for `manifest`, as one string (for tests and small manifests).
    public static func html(_ manifest: Manifest) -> String {
        let sheet = ContactSheet(generatedAt: manifest.generatedAt, run: manifest.run)
        // The order `write` reads the items in (`ItemSorter.Order.page`): sources by their bytes.
        let items = manifest.sortedItems.sorted { a, b in
            if let order = ManifestItem.compareBytes(a.source.utf8, b.source.utf8), order != 0 { return order < 0 }
            if a.page != b.page { return a.page < b.page }
            return ManifestItem.compareIDs(a.id, b.id) < 0
        }
        let earlier = manifest.run.map { run in items.filter { ($0.lastSeen ?? .distantPast) < run.startedAt }.count } ?? 0
        var out = ""
        sheet.render(outline: Outline(keys: items.lazy.map { ($0.source, $0.page) }, earlier: earlier), items: items) { out += $0 }
        return out
    }

    /// What the sheet needs to know of a manifest before its first tile, gathered while the
    /// manifest is written (`add`, once per item line): each item's key and page and where its
    /// line is, sorted by page in an `ItemSorter` (runs in `spill`), the (source, page) groups,
    /// and when each item was last seen. So `write` reads each item once, for its tile.
    final class Index {
        fileprivate let sorter: ItemSorter
        /// Items by source (keyed by its bytes, as the sorter compares them) and page.
        private var pages: [[UInt8]: (source: String, counts: [Int: Int])] = [:]
        private var seen: [Date: Int] = [:]  // items by lastSeen (a run start): few distinct values

        init(spill: Spill?) {
            sorter = ItemSorter(order: .page, spill: spill)
        }

        /// Records `item`, whose line the manifest holds at `location`.
        func add(_ item: ManifestItem, at location: ItemLocation) {
            sorter.add(source: item.source, id: item.id, page: item.page, location: location)
            pages[Array(item.source.utf8), default: (item.source, [:])].counts[item.page, default: 0] += 1
            seen[item.lastSeen ?? .distantPast, default: 0] += 1
        }

        /// The groups in the order the sorter gives the items (sources by their bytes, then
        /// pages), and how many items were last seen before `runStarted`.
        fileprivate func outline(runStarted: Date?) -> Outline {
            let earlier = runStarted.map { start in seen.filter { $0.key < start }.values.reduce(0, +) } ?? 0
            var outline = Outline(keys: [(String, Int)](), earlier: earlier)
            for key in pages.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let (source, counts) = pages[key] else { continue }
                for page in counts.keys.sorted() { outline.add(source: source, page: page, count: counts[page] ?? 0) }
            }
            return outline
        }
    }

    /// Writes `OUT/index.html` for the manifest at `manifestPath`, whose lines `index` located
    /// as it was written: the items are read back one at a time, in page order, as their tiles
    /// are written. Atomic (temporary file, rename); not fsynced: the sheet can always be rebuilt
    /// from the manifest. Without a manifest nothing is written.
    static func write(index: Index, manifestPath: String, outDirectory: String) throws {
        guard let header = try ManifestReader.header(path: manifestPath) else { return }
        let outline = index.outline(runStarted: header.run?.startedAt)
        let fd = try FileIO.open(manifestPath, O_RDONLY)
        defer { close(fd) }
        // An item that cannot be read back keeps its tile (as a placeholder saying so), so every
        // later tile stays in its page group.
        let items = index.sorter.sorted().lazy.map { entry in
            (try? FileIO.readAt(fd, offset: entry.location.offset, count: entry.location.length, path: manifestPath) {
                try ItemJSON.decode($0, v1: ManifestItemV1.Variants())
            }) ?? ManifestItem(
                source: entry.source, id: entry.id, page: entry.page,
                error: "this item could not be read back from the manifest")
        }
        let writer = try ChunkedFileWriter(path: outDirectory + "/" + fileName)
        ContactSheet(generatedAt: header.generatedAt, run: header.run).render(outline: outline, items: items) {
            writer.append($0)
        }
        try writer.commit()
    }

    /// Renders the page in pieces, in order: `items` sorted by source, page and id, as `outline`
    /// describes them.
    func render<Items: Sequence<ManifestItem>>(outline: Outline, items: Items, _ emit: (String) -> Void) {
        emit(head())
        emit(header(outline))
        emit("<main>\n")
        var iterator = items.makeIterator()
        var buffer = ""
        for (sourceIndex, group) in outline.groups.enumerated() {
            let count = group.pages.reduce(0) { $0 + $1.count }
            emit("<section id=\"s\(sourceIndex)\"><h2>\(HTMLText.escape(group.source, limit: 80)) <small>\(count) items</small></h2>\n")
            for page in group.pages {
                emit("<h3 id=\"s\(sourceIndex)p\(page.page)\">page \(page.page) <small>\(page.count) items</small></h3>\n<div class=\"grid\">\n")
                for _ in 0..<page.count {
                    guard let item = iterator.next() else { break }
                    buffer.removeAll(keepingCapacity: true)
                    figure(item, into: &buffer)
                    emit(buffer)
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

    /// What the header and the section headings need before the first tile: the consecutive
    /// runs of (source, page) in the sorted items, how many there are, and how many the last run
    /// did not list.
    struct Outline: Equatable {
        var groups: [SourceGroup] = []
        var count = 0
        var earlier = 0

        init<Keys: Sequence>(keys: Keys, earlier: Int) where Keys.Element == (String, Int) {
            for (source, page) in keys { add(source: source, page: page) }
            self.earlier = earlier
        }

        /// Counts the next `items` (default 1) in sorted order, all of `source` and `page`.
        mutating func add(source: String, page: Int, count items: Int = 1) {
            count += items
            if let group = groups.last, group.source.utf8.elementsEqual(source.utf8) {
                let last = groups.count - 1
                if groups[last].pages.last?.page == page {
                    groups[last].pages[groups[last].pages.count - 1].count += items
                } else {
                    groups[last].pages.append(PageGroup(page: page, count: items))
                }
            } else {
                groups.append(SourceGroup(source: source, pages: [PageGroup(page: page, count: items)]))
            }
        }
    }

    /// Sources the run record names as Pixabay sources (`<name>.type`), and `pixabay` itself.
    static func pixabaySources(_ run: RunRecord?) -> Set<String> {
        var names: Set<String> = ["pixabay"]
        for (key, value) in run?.options ?? [:] where key.hasSuffix(".type") && value == "pixabay" {
            names.insert(String(key.dropLast(5)))
        }
        return names
    }
}
