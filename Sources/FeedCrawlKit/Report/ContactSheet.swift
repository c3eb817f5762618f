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
    /// an absolute URL ending in `/` (`--public-url`), HTML-escaped (`linkBase(_:)` makes it).
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
        self.linkBase = linkBase
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
        let index = Index(spill: nil, run: manifest.run, pageItems: pageItems, pageBytes: pageBytes)
        manifest.sortedItems.forEach(index.add)
        var (sheet, layout, tiles) = index.layout(generatedAt: manifest.generatedAt, run: manifest.run)
        return (1...layout.pieces.count).map { page in
            var out = ""
            sheet.render(page: page, of: layout, tiles: &tiles) { out += $0 }
            return out
        }
    }

    /// The sheet of a manifest being written, gathered as it is written (`add`, once per item):
    /// each item's tile, rendered then and kept in `spill` (in memory without one), sorted by
    /// page in an `ItemSorter` (runs in `spill`), the (source, page) groups, and when each item
    /// was last seen. So `write` decodes no item: it copies the tiles in page order.
    final class Index {
        private let sorter: ItemSorter
        private let tiles: TileStore
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
            sheet = ContactSheet(generatedAt: run?.startedAt ?? .distantPast, run: run, linkBase: ContactSheet.linkBase(linkBase),
                                 pageItems: pageItems, pageBytes: pageBytes)
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

        /// For the manifest whose header has `generatedAt` and `run`: the sheet (this index's links
        /// and page bounds), where the tiles go (the groups in the order the sorter gives the
        /// items, and how many items `run` did not list), and the tiles in page order. The sorted
        /// keys are read twice (once for the tiles' sizes, which bound the pages), the tiles once.
        func layout(generatedAt: Date, run: RunRecord?) -> (ContactSheet, Layout, some IteratorProtocol<String>) {
            let sheet = ContactSheet(generatedAt: generatedAt, run: run, linkBase: self.sheet.linkBase,
                                     pageItems: self.sheet.pageItems, pageBytes: self.sheet.pageBytes)
            let earlier = run.map { run in seen.filter { $0.key < run.listedSince }.values.reduce(0, +) } ?? 0
            var outline = Outline(keys: [(String, Int)](), earlier: earlier)
            for key in pages.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let (source, counts) = pages[key] else { continue }
                for page in counts.keys.sorted() { outline.add(source: source, page: page, count: counts[page] ?? 0) }
            }
            let layout = Layout(outline, paging: sheet.paging(outline, sizes: sorter.sorted().lazy.map(\.location.length)))
            return (sheet, layout, sorter.sorted().lazy.map(tile).makeIterator())
        }

        /// The tile of the item `entry` names, or a placeholder saying it was lost.
        private func tile(_ entry: ItemSorter.Entry) -> String {
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
            file = spill.flatMap { Spill(directory: $0.directory) }
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
    /// manifest's, then the tiles in page order. Without a manifest nothing is written.
    static func write(index: Index, manifestPath: String, outDirectory: String) throws {
        guard let header = try ManifestReader.header(path: manifestPath) else { return }
        var (sheet, layout, tiles) = index.layout(generatedAt: header.generatedAt, run: header.run)
        try sheet.write(layout, tiles: &tiles, to: outDirectory)
    }

    /// The sizes of the pages for `outline`'s items, whose tiles have `sizes` bytes in order
    /// (`ContactSheet.paging`): the first page's header counts against its bytes.
    func paging<Sizes: Sequence<Int>>(_ outline: Outline, sizes: Sizes) -> [Int] {
        // The header as the first page has it, but for the pages' names in its links.
        let reserve = head(page: 1, of: 1).utf8.count + header(outline, page: 1, of: 1, starts: [:]).utf8.count
            + 32 * outline.groups.reduce(0) { $0 + $1.pages.count + 1 }
        return Self.paging(sizes: sizes, itemsPerPage: pageItems, bytesPerPage: pageBytes, firstPageReserve: reserve)
    }

    /// Where `outline`'s items go when `paging[k]` of them are on page k + 1: by page, the
    /// pieces (the tiles of one feed page on one page of the sheet), and the page each source
    /// (`s<index>`) and each of its feed pages (`s<index>p<page>`) starts on. The last page takes
    /// what is left.
    struct Layout {
        /// `count` tiles of feed page `outline.groups[source].pages[feedPage]` on sheet page `page`.
        struct Piece {
            var page, source, feedPage, count: Int
        }

        let outline: Outline
        /// The pieces of each page, at least one page.
        var pieces: [[Piece]]
        var starts: [String: Int] = [:]

        init(_ outline: Outline, paging: [Int]) {
            self.outline = outline
            pieces = Array(repeating: [], count: max(1, paging.count))
            var page = 1, left = paging.first ?? 0
            for (source, group) in outline.groups.enumerated() {
                for (feedPage, counted) in group.pages.enumerated() {
                    var remaining = counted.count
                    while remaining > 0 {
                        if left == 0, page < paging.count {
                            page += 1
                            left = paging[page - 1]
                            continue
                        }
                        if starts["s\(source)"] == nil { starts["s\(source)"] = page }
                        if remaining == counted.count { starts["s\(source)p\(counted.page)"] = page }
                        let n = page < paging.count ? min(remaining, left) : remaining
                        pieces[page - 1].append(Piece(page: page, source: source, feedPage: feedPage, count: n))
                        remaining -= n
                        left -= n
                    }
                }
            }
        }
    }

    /// Renders page `page` (1-based) of `layout` in pieces, taking its tiles from `tiles`. A
    /// source or feed page that goes on from the page before is headed again ("continued").
    func render<E: Error>(
        page: Int, of layout: Layout, tiles: inout some IteratorProtocol<String>, _ emit: (String) throws(E) -> Void
    ) throws(E) {
        let pages = layout.pieces.count, outline = layout.outline
        try emit(head(page: page, of: pages))
        try emit(header(outline, page: page, of: pages, starts: layout.starts))
        try emit("<main>\n")
        var previous = page > 1 ? layout.pieces[page - 2].last : nil
        for piece in layout.pieces[page - 1] {
            let group = outline.groups[piece.source], feedPage = group.pages[piece.feedPage]
            let sameSource = previous?.source == piece.source
            if !sameSource || previous?.page != page {
                if previous?.page == page { try emit("</section>\n") }
                let id = sameSource ? "" : " id=\"s\(piece.source)\""
                let more = sameSource ? " (continued)" : ""
                let count = group.pages.reduce(0) { $0 + $1.count }
                try emit("<section\(id)><h2>\(HTMLText.escape(group.source, limit: 80))\(more) <small>\(Self.count(count, "item"))</small></h2>\n")
            }
            let continued = sameSource && previous?.feedPage == piece.feedPage
            let id = continued ? "" : " id=\"s\(piece.source)p\(feedPage.page)\""
            let more = continued ? " (continued)" : ""
            try emit("<h3\(id)>page \(feedPage.page)\(more) <small>\(Self.count(feedPage.count, "item"))</small></h3>\n<div class=\"grid\">\n")
            for _ in 0..<piece.count {
                guard let tile = tiles.next() else { break }
                try emit(tile)
            }
            try emit("</div>\n")
            previous = piece
        }
        if previous?.page == page { try emit("</section>\n") }
        if outline.count == 0 { try emit("<p class=\"empty\">The manifest lists no items yet.</p>\n") }
        if pages > 1 { try emit("<footer>" + pager(page: page, of: pages) + "</footer>\n") }
        try emit("</main>\n</body>\n</html>\n")
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
