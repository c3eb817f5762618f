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
    /// What links to the manifest and the images start with: empty (relative links, default), or
    /// an absolute URL ending in `/` (`--public-url`).
    let linkBase: String
    /// Most items a page holds (default `ContactSheet.itemsPerPage`).
    let pageItems: Int
    /// Most bytes of tiles a page holds (default `ContactSheet.tileBytesPerPage`).
    let pageBytes: Int

    init(generatedAt: Date, run: RunRecord?, linkBase: String = "", pageItems: Int = ContactSheet.itemsPerPage,
         pageBytes: Int = ContactSheet.tileBytesPerPage) {
        self.generatedAt = generatedAt
        self.run = run
        pixabaySources = Self.pixabaySources(run)
        self.linkBase = Self.linkBase(linkBase)
        self.pageItems = max(1, pageItems)
        self.pageBytes = pageBytes
    }

    /// `url` ending in exactly one `/`, HTML-escaped; empty stays empty.
    static func linkBase(_ url: String) -> String {
        guard !url.isEmpty else { return "" }
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return HTMLText.escape(base) + "/"
    }

    /// The first page for `manifest`, as one string (for tests and small manifests: the whole
    /// sheet up to `itemsPerPage` items).
    public static func html(_ manifest: Manifest) -> String {
        pages(manifest)[0]
    }

    /// Every page for `manifest`, as strings, pages of at most `pageItems` items (default
    /// `itemsPerPage`) and `pageBytes` bytes of tiles (default `tileBytesPerPage`).
    static func pages(_ manifest: Manifest, pageItems: Int = itemsPerPage, pageBytes: Int = tileBytesPerPage) -> [String] {
        let sheet = ContactSheet(generatedAt: manifest.generatedAt, run: manifest.run, pageItems: pageItems, pageBytes: pageBytes)
        // The order `write` reads the items in (`ItemSorter.Order.page`): sources by their bytes.
        let items = manifest.sortedItems.sorted { a, b in
            if let order = ManifestItem.compareBytes(a.source.utf8, b.source.utf8), order != 0 { return order < 0 }
            if a.page != b.page { return a.page < b.page }
            return ManifestItem.compareIDs(a.id, b.id) < 0
        }
        let earlier = manifest.run.map { run in items.filter { !run.listed($0) }.count } ?? 0
        let tiles = items.map { item in
            var tile = ""
            sheet.figure(item, into: &tile)
            return tile
        }
        let outline = Outline(keys: items.lazy.map { ($0.source, $0.page) }, earlier: earlier)
        var out: [String] = []
        sheet.render(outline: outline, paging: sheet.paging(outline, sizes: tiles.lazy.map(\.utf8.count)), tiles: tiles) { page, text in
            if out.count < page { out.append("") }
            out[page - 1] += text
        }
        return out
    }

    /// The sheet of a manifest being written, gathered as it is written (`add`, once per item):
    /// each item's tile, rendered then and kept in `spill` (in memory without one), sorted by
    /// page in an `ItemSorter` (runs in `spill`), the (source, page) groups, and when each item
    /// was last seen. So `write` decodes no item: it copies the tiles in page order.
    final class Index {
        fileprivate let sorter: ItemSorter
        fileprivate let tiles: TileStore
        /// Renders the tiles; `run` is the run (or merge) whose manifest is being written.
        private let sheet: ContactSheet
        private var buffer = ""
        /// Items by source (keyed by its bytes, as the sorter compares them) and page.
        private var pages: [[UInt8]: (source: String, counts: [Int: Int])] = [:]
        /// Items by `lastSeen` rounded down to the second (a run's start): few distinct values.
        private var seen: [Date: Int] = [:]
        /// The last item's source and its bytes (items come sorted by source: one array a source).
        private var lastSource: (name: String, bytes: [UInt8]) = ("", [])

        /// Links start with `linkBase` (default empty: relative); pages hold at most `pageItems`
        /// items (default `ContactSheet.itemsPerPage`) and `pageBytes` bytes of tiles (default
        /// `ContactSheet.tileBytesPerPage`).
        init(spill: Spill?, run: RunRecord?, linkBase: String = "", pageItems: Int = ContactSheet.itemsPerPage,
             pageBytes: Int = ContactSheet.tileBytesPerPage) {
            sorter = ItemSorter(order: .page, spill: spill)
            tiles = TileStore(spill: spill)
            sheet = ContactSheet(generatedAt: run?.startedAt ?? .distantPast, run: run, linkBase: linkBase,
                                 pageItems: pageItems, pageBytes: pageBytes)
            publicURL = linkBase
        }

        /// `linkBase` as given (the sheet keeps it escaped).
        private let publicURL: String

        /// The base of every link (`ContactSheet.linkBase`).
        var linkBase: String { sheet.linkBase }

        /// The sheet for the manifest's header: its time and run, this index's links and page bounds.
        fileprivate func sheet(generatedAt: Date, run: RunRecord?) -> ContactSheet {
            ContactSheet(generatedAt: generatedAt, run: run, linkBase: publicURL, pageItems: sheet.pageItems,
                         pageBytes: sheet.pageBytes)
        }

        /// Renders and records the tile of `item`.
        func add(_ item: ManifestItem) {
            buffer.removeAll(keepingCapacity: true)
            sheet.figure(item, into: &buffer)
            sorter.add(source: item.source, id: item.id, page: item.page, location: tiles.put(buffer))
            if !lastSource.name.utf8.elementsEqual(item.source.utf8) { lastSource = (item.source, Array(item.source.utf8)) }
            pages[lastSource.bytes, default: (item.source, [:])].counts[item.page, default: 0] += 1
            seen[item.lastSeen?.wholeSeconds ?? .distantPast, default: 0] += 1
        }

        /// The groups in the order the sorter gives the items (sources by their bytes, then
        /// pages), and how many items `run` did not list (`RunRecord.listed`).
        fileprivate func outline(run: RunRecord?) -> Outline {
            let earlier = run.map { run in seen.filter { $0.key < run.listedSince }.values.reduce(0, +) } ?? 0
            var outline = Outline(keys: [(String, Int)](), earlier: earlier)
            for key in pages.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let (source, counts) = pages[key] else { continue }
                for page in counts.keys.sorted() { outline.add(source: source, page: page, count: counts[page] ?? 0) }
            }
            return outline
        }

        /// The tile of the item `entry` names, or a placeholder saying it was lost.
        fileprivate func tile(_ entry: ItemSorter.Entry) -> String {
            if let text = tiles.read(entry.location) { return text }
            var out = ""
            sheet.figure(ManifestItem(source: entry.source, id: entry.id, page: entry.page,
                                      error: "this item's tile could not be kept (no room for scratch data)"), into: &out)
            return out
        }
    }

    /// Where an `Index` keeps rendered tiles: in a scratch file of its own next to `spill`,
    /// written 64 KiB at a time, or in memory when there is none or a write to it failed (a
    /// full disk). Memory locations are offsets from `memoryBase`, above any file offset.
    final class TileStore {
        private let file: Spill?
        private var spilling: Bool
        /// Tiles not yet written to `file`; they start at its end.
        private var pending: [UInt8] = []
        private var memory: [UInt8] = []
        static let memoryBase: Int64 = 1 << 39
        static let chunk = 64 << 10

        init(spill: Spill?) {
            file = spill?.sibling()
            spilling = file != nil
            pending.reserveCapacity(spilling ? Self.chunk + 4096 : 0)
        }

        func put(_ text: String) -> ItemLocation {
            let count = text.utf8.count
            guard count > 0, count <= ItemLocation.maxLength else { return ItemLocation(offset: 0, length: 0) }
            if let file, spilling {
                let location = ItemLocation(offset: file.size + Int64(pending.count), length: count)
                pending.append(contentsOf: text.utf8)
                if pending.count >= Self.chunk { flush() }  // on failure `read` finds it in memory
                return location
            }
            defer { memory.append(contentsOf: text.utf8) }
            return ItemLocation(offset: Self.memoryBase + Int64(memory.count), length: count)
        }

        /// Writes the pending tiles; on failure they move to memory, where later tiles go too.
        private func flush() {
            guard let file, spilling, !pending.isEmpty else { return }
            if file.append(pending) == nil {
                spilling = false
                // Their locations were handed out as file offsets: keep them readable by
                // recording where in memory each pending tile now is.
                relocated = (file.size, Self.memoryBase + Int64(memory.count), pending.count)
                memory.append(contentsOf: pending)
            }
            pending.removeAll(keepingCapacity: true)
        }

        /// The file offset the tiles pending at a failed write would have started at, where they
        /// are in memory instead, and how many bytes.
        private var relocated: (fileOffset: Int64, memoryOffset: Int64, count: Int)?

        /// The tile at `location`, or nil when it was not kept or cannot be read back.
        func read(_ location: ItemLocation) -> String? {
            guard location.length > 0 else { return nil }
            flush()
            var offset = location.offset
            if let relocated, offset >= relocated.fileOffset, offset < relocated.fileOffset + Int64(relocated.count) {
                offset = relocated.memoryOffset + (offset - relocated.fileOffset)
            }
            if offset >= Self.memoryBase {
                let start = Int(offset - Self.memoryBase)
                return String(decoding: memory[start..<start + location.length], as: UTF8.self)
            }
            return file?.read(at: offset, count: location.length).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Writes the sheet's pages (`OUT/index.html`, `OUT/index-2.html`, …) for the manifest at
    /// `manifestPath`, whose items `index` gathered as it was written: the header from the
    /// manifest's, then the tiles in page order. The sorted keys are read twice (once for the
    /// tiles' sizes, which bound the pages), the tiles once. Each page is atomic (temporary file,
    /// rename), `index.html` renamed last and the pages of an earlier, larger sheet removed after
    /// it (`PageFiles`); not fsynced: the sheet can always be rebuilt from the manifest. Without a
    /// manifest nothing is written.
    static func write(index: Index, manifestPath: String, outDirectory: String) throws {
        guard let header = try ManifestReader.header(path: manifestPath) else { return }
        let outline = index.outline(run: header.run)
        let sheet = index.sheet(generatedAt: header.generatedAt, run: header.run)
        let paging = sheet.paging(outline, sizes: index.sorter.sorted().lazy.map(\.location.length))
        let files = PageFiles(directory: outDirectory)
        sheet.render(outline: outline, paging: paging, tiles: index.sorter.sorted().lazy.map(index.tile)) { page, text in
            files.append(page: page, text)
        }
        try files.commit()
    }

    /// The sizes of the pages for `outline`'s items, whose tiles have `sizes` bytes in order
    /// (`ContactSheet.paging`): the first page's header counts against its bytes.
    func paging<Sizes: Sequence<Int>>(_ outline: Outline, sizes: Sizes) -> [Int] {
        // The header as the first page has it, but for the pages' names in its links.
        let reserve = head(page: 1, of: 1).utf8.count + header(outline, page: 1, of: 1, starts: [:]).utf8.count
            + 32 * outline.groups.reduce(0) { $0 + $1.pages.count + 1 }
        return Self.paging(sizes: sizes, itemsPerPage: pageItems, bytesPerPage: pageBytes, firstPageReserve: reserve)
    }

    /// Renders the pages in pieces, in order, each piece with its page (1-based): the `tiles`
    /// of the items sorted by source, page and id, as `outline` describes them, `paging[k]` of
    /// them on page k + 1. A source or feed page that goes on to the next page is headed there
    /// again ("continued"); the ids the first page's links point to are where each starts.
    func render<Tiles: Sequence<String>>(outline: Outline, paging: [Int], tiles: Tiles, _ emit: (Int, String) -> Void) {
        let pages = max(1, paging.count)
        let starts = Self.starts(outline, paging: paging)
        var page = 1
        var left = paging.first ?? 0
        var iterator = tiles.makeIterator()
        func open() {
            emit(page, head(page: page, of: pages))
            emit(page, header(outline, page: page, of: pages, starts: starts))
            emit(page, "<main>\n")
        }
        func close() {
            if pages > 1 { emit(page, "<footer>" + pager(page: page, of: pages) + "</footer>\n") }
            emit(page, "</main>\n</body>\n</html>\n")
        }
        open()
        for (sourceIndex, group) in outline.groups.enumerated() {
            let count = group.pages.reduce(0) { $0 + $1.count }
            var section = false, sourceStarted = false
            for feedPage in group.pages {
                var remaining = feedPage.count, pageStarted = false
                while remaining > 0 {
                    if left == 0, page < pages {
                        if section { emit(page, "</section>\n") }
                        close()
                        page += 1
                        left = paging[page - 1]
                        section = false
                        open()
                        continue
                    }
                    if !section {
                        let id = sourceStarted ? "" : " id=\"s\(sourceIndex)\""
                        let more = sourceStarted ? " (continued)" : ""
                        emit(page, "<section\(id)><h2>\(HTMLText.escape(group.source, limit: 80))\(more) <small>\(Self.count(count, "item"))</small></h2>\n")
                        section = true
                        sourceStarted = true
                    }
                    let id = pageStarted ? "" : " id=\"s\(sourceIndex)p\(feedPage.page)\""
                    let more = pageStarted ? " (continued)" : ""
                    emit(page, "<h3\(id)>page \(feedPage.page)\(more) <small>\(Self.count(feedPage.count, "item"))</small></h3>\n<div class=\"grid\">\n")
                    pageStarted = true
                    // The last page takes what is left (tiles `paging` did not count).
                    let n = page < pages ? min(remaining, left) : remaining
                    for _ in 0..<n {
                        guard let tile = iterator.next() else { break }
                        emit(page, tile)
                    }
                    emit(page, "</div>\n")
                    remaining -= n
                    left -= n
                }
            }
            if section { emit(page, "</section>\n") }
        }
        if outline.count == 0 { emit(page, "<p class=\"empty\">The manifest lists no items yet.</p>\n") }
        close()
    }

    /// The page each source (`s<index>`) and each of its feed pages (`s<index>p<page>`) starts
    /// on, as `render` places them.
    static func starts(_ outline: Outline, paging: [Int]) -> [String: Int] {
        var starts: [String: Int] = [:]
        var page = 1, left = paging.first ?? 0
        for (sourceIndex, group) in outline.groups.enumerated() {
            for feedPage in group.pages {
                var remaining = feedPage.count
                while remaining > 0 {
                    if left == 0, page < paging.count {
                        page += 1
                        left = paging[page - 1]
                        continue
                    }
                    if starts["s\(sourceIndex)"] == nil { starts["s\(sourceIndex)"] = page }
                    if remaining == feedPage.count { starts["s\(sourceIndex)p\(feedPage.page)"] = page }
                    let n = page < paging.count ? min(remaining, left) : remaining
                    remaining -= n
                    left -= n
                }
            }
        }
        return starts
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
