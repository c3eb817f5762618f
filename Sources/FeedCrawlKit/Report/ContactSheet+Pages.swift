import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

/// The sheet's pages: `index.html`, and one page per feed page, named after it, split into
/// parts of at most `itemsPerPage` items and `tileBytesPerPage` bytes of tiles, so that a page
/// stays under 2 MiB and opens quickly whatever the archive's size.
extension ContactSheet {
    /// Most items on one page of the sheet: 200. A browser's cost is the images, not the
    /// markup (about 0.13 MB here): headless Chromium loaded a 1,000-item page in 4.1 s and a
    /// 200-item page in 1.4 s on a 2-core machine busy building (scripts/test-sheet-chromium).
    public static let itemsPerPage = 200

    /// Most bytes of tiles on one page: 1.75 MiB, so that a page with its header stays under
    /// 2 MiB however long the items' text (a page of such items holds fewer than `itemsPerPage`).
    /// `index.html`'s header and table of contents count against it.
    public static let tileBytesPerPage = 1792 << 10

    /// What each group heading on a page is counted as, against `tileBytesPerPage` (a heading is
    /// shorter).
    static let headingBytes = 256

    /// The name of part `part` (1 for the first; default 1) of the sheet page of `source`'s feed
    /// page `page`: `index-<source>-p<page>.html`, `index-<source>-p<page>-<part>.html`. A
    /// source name that cannot be part of a file name (not 1 to 64 of `A-Z a-z 0-9 . _ -`), or
    /// a negative page, is named `index-_<64 hex digits>-p0.html` instead: the SHA-256 of the
    /// source and page (65 characters: no source name is that long). Every name is a safe
    /// relative link. `FileHandle.sheetPage` reads a name back.
    public static func pageName(source: String, page: Int, part: Int = 1) -> String {
        let token: String
        let number: Int
        if SourceConfiguration.isValidName(source), page >= 0 {
            token = source
            number = page
        } else {
            token = "_" + SHA256.hex(Array(source.utf8) + [0] + Array(String(page).utf8))
            number = 0
        }
        return "index-\(token)-p\(number)" + (part > 1 ? "-\(part)" : "") + ".html"
    }

    /// One feed page as the sheet shows it: `source`'s `page`, its live groups newest first
    /// (those with effective items: an older listing whose items all moved is not shown).
    struct FeedPage: Sendable {
        /// The source's name, as the archive holds it.
        var source: String
        /// The feed page's number.
        var page: Int
        /// Its groups in the table, newest first: a slice of the table's entries (no copy; a
        /// sheet of 50,000 feed pages held 20 MB of copies), groups without an effective item
        /// included.
        var entries: ArraySlice<GroupEntry>
        /// Its live groups with an effective item, newest first (at least one).
        var groups: [GroupEntry] { entries.filter { $0.liveItems > 0 } }

        /// Its first part's name (`pageName`).
        var name: String { ContactSheet.pageName(source: source, page: page) }
        /// Effective items on it.
        var items: Int { entries.reduce(0) { $0 + $1.liveItems } }
    }

    /// The feed pages of `table`, in its order (source, page), each with its live groups newest
    /// first; groups without an effective item are left out, and pages left without a group.
    static func feedPages(_ table: GroupTable) -> [FeedPage] {
        var pages: [FeedPage] = []
        let entries = table.entries
        var start = entries.startIndex
        while start < entries.endIndex {
            let first = entries[start]
            var end = start + 1
            while end < entries.endIndex, entries[end].source == first.source, entries[end].page == first.page { end += 1 }
            let page = FeedPage(source: first.source, page: first.page, entries: entries[start..<end])
            if page.entries.contains(where: { $0.liveItems > 0 }) { pages.append(page) }
            start = end
        }
        return pages
    }

    /// How many items each page holds: a new page starts when the current one has
    /// `itemsPerPage` items or the next tile (`sizes`, in page order; at least 1 byte each) would
    /// take its tiles over `bytesPerPage`, the first page's less `firstPageReserve` (a header).
    /// At least one page, which may be empty.
    static func paging<Sizes: Sequence<Int>>(
        sizes: Sizes, itemsPerPage: Int, bytesPerPage: Int, firstPageReserve: Int = 0
    ) -> [Int] {
        var counts = [0]
        var bytes = firstPageReserve
        for size in sizes {
            let tile = max(1, size)
            if counts[counts.count - 1] > 0, counts[counts.count - 1] >= itemsPerPage || bytes + tile > bytesPerPage {
                counts.append(0)
                bytes = 0
            }
            counts[counts.count - 1] += 1
            bytes += tile
        }
        return counts
    }

    /// The tiles of a feed page, rendered: for each of its groups (newest first) the group and
    /// its effective items' tiles, in id order.
    struct Tiles: Sendable {
        /// One group's tiles.
        struct Group: Sendable {
            /// The group.
            var entry: GroupEntry
            /// Whether this is an older listing (not the page's newest group).
            var earlier: Bool
            /// Its effective items' tiles, in id order; none when the feed page has more items
            /// than a sheet page holds: then its `items` are kept instead and each tile is made
            /// again when its part is written (a feed page of 20,000 items holds its items, not
            /// also twenty megabytes of tiles).
            var tiles: [String]
            /// Its effective items in id order, when `tiles` are not kept.
            var items: [ManifestItem] = []
            /// Each tile's size in bytes.
            var sizes: [Int]

            init(entry: GroupEntry, earlier: Bool, tiles: [String]) {
                self.entry = entry
                self.earlier = earlier
                self.tiles = tiles
                sizes = tiles.map(\.utf8.count)
            }

            init(entry: GroupEntry, earlier: Bool, items: [ManifestItem], sizes: [Int]) {
                self.entry = entry
                self.earlier = earlier
                tiles = []
                self.items = items
                self.sizes = sizes
            }

            /// Its tiles.
            var count: Int { sizes.count }
        }

        /// The feed page.
        var page: FeedPage
        /// Its groups' tiles, newest group first.
        var groups: [Group]

        /// Every tile as its group's index and its position there, in page order.
        var flat: [(group: Int, position: Int)] {
            groups.indices.flatMap { index in (0..<groups[index].count).map { (index, $0) } }
        }

        /// The size each tile counts as against a page's bytes: its own, and a heading's for the
        /// first of its group.
        var sizes: [Int] {
            groups.flatMap { group in
                group.sizes.enumerated().map { $0.element + ($0.offset == 0 ? ContactSheet.headingBytes : 0) }
            }
        }
    }

    /// The tiles of `page`, its groups' items (`items`, one array per group of `page.groups`, in
    /// id order) rendered; kept only when they fit one sheet page's item count (see
    /// `Tiles.Group.tiles`).
    func tiles(of page: FeedPage, items: [[ManifestItem]]) -> Tiles {
        let keep = items.reduce(0) { $0 + $1.count } <= pageItems
        var groups: [Tiles.Group] = []
        for (index, entry) in page.groups.enumerated() {
            let group = index < items.count ? items[index] : []
            if keep {
                groups.append(Tiles.Group(entry: entry, earlier: index > 0, tiles: group.map(tile)))
            } else {
                groups.append(Tiles.Group(entry: entry, earlier: index > 0, items: group, sizes: group.map { tile($0).utf8.count }))
            }
        }
        return Tiles(page: page, groups: groups)
    }

    /// The tile of `item`.
    func tile(_ item: ManifestItem) -> String {
        var out = ""
        figure(item, into: &out)
        return out
    }

    /// The parts of a feed page whose tiles are `tiles`: how many tiles each holds (at least one
    /// part).
    func parts(_ tiles: Tiles) -> [Int] {
        Self.paging(sizes: tiles.sizes, itemsPerPage: pageItems, bytesPerPage: pageBytes)
    }
}

extension ContactSheet {
    /// Every page of the sheet of `manifest` as an archive of it would have them, `index.html`
    /// first, as (name, HTML): its items grouped by source, page and `lastSeen` (one group per
    /// listing, as a converted archive groups them), rendered in memory. For tests and the fuzz
    /// checks; a run writes the sheet of its archive with `write(repository:run:backend:linkBase:)`.
    /// Links start with `linkBase` (default empty); pages hold at most `pageItems` items and
    /// `pageBytes` bytes of tiles (defaults `itemsPerPage`, `tileBytesPerPage`).
    static func pages(
        _ manifest: Manifest, linkBase: String = "", pageItems: Int = itemsPerPage, pageBytes: Int = tileBytesPerPage
    ) -> [(name: String, html: String)] {
        let sheet = ContactSheet(run: manifest.run, linkBase: Self.linkBase(linkBase), pageItems: pageItems, pageBytes: pageBytes)
        func listed(_ item: ManifestItem) -> Int64 {
            Int64(((item.lastSeen ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1000).rounded())
        }
        var listings: [String: (source: String, page: Int, listed: Int64, items: [ManifestItem])] = [:]
        for item in manifest.sortedItems {
            let key = "\(item.source.utf8.count):\(item.source) \(item.page) \(listed(item))"
            listings[key, default: (item.source, item.page, listed(item), [])].items.append(item)
        }
        // Numbered in listing order, as runs number their groups.
        let ordered = listings.values.sorted { ($0.listed, $0.source, $0.page) < ($1.listed, $1.source, $1.page) }
        var entries: [GroupEntry] = []
        var items: [UInt32: [ManifestItem]] = [:]
        for (index, listing) in ordered.enumerated() {
            let number = UInt32(index + 1)
            let sorted = listing.items.sorted { ManifestItem.compareIDs($0.id, $1.id) < 0 }
            let header = GroupHeader(
                number: number, source: listing.source, page: listing.page, digest: nil, recipe: nil, listed: listing.listed,
                items: sorted.count)
            entries.append(GroupEntry(header: header, segment: "journal/memory", offset: 0, length: 0, items: sorted))
            items[number] = sorted.map { item in
                var item = item
                item.lastSeen = Date(timeIntervalSince1970: Double(listing.listed / 1000))
                return item
            }
        }
        let pages = feedPages(GroupTable(entries: entries))
        var out: [(name: String, html: String)] = []
        var first: Tiles?
        for (index, page) in pages.enumerated() {
            let tiles = sheet.tiles(of: page, items: page.groups.map { items[$0.number] ?? [] })
            if index == 0 { first = tiles }
            let parts = sheet.parts(tiles)
            for part in 1...parts.count {
                out.append((pageName(source: page.source, page: page.page, part: part), sheet.render(
                    tiles, part: part, parts: parts, previous: index > 0 ? pages[index - 1] : nil,
                    next: index + 1 < pages.count ? pages[index + 1] : nil)))
            }
        }
        return [(fileName, sheet.renderIndex(pages, first: first, generatedAt: manifest.generatedAt))] + out
    }

    /// Every page of the sheet of `manifest` (`pages`), one after the other, `index.html` first.
    public static func html(_ manifest: Manifest) -> String {
        pages(manifest).map(\.html).joined()
    }
}
