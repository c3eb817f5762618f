#if canImport(Glibc)
import Glibc
#endif
import FeedCrawlSupport

/// The sheet's pages: `index.html`, then `index-2.html`, `index-3.html`, … in the same folder,
/// each holding at most `itemsPerPage` items and `tileBytesPerPage` bytes of tiles, so that a
/// page stays under 2 MiB and opens quickly whatever the archive's size.
extension ContactSheet {
    /// Most items on one page of the sheet: 200. A browser's cost is the images, not the
    /// markup (about 0.13 MB here): headless Chromium loaded a 1,000-item page in 4.1 s and a
    /// 200-item page in 1.4 s on a 2-core machine busy building (scripts/test-sheet-chromium).
    public static let itemsPerPage = 200

    /// Most bytes of tiles on one page: 1.75 MiB, so that a page with its header stays under
    /// 2 MiB however long the items' text (a page of such items holds fewer than `itemsPerPage`).
    /// The first page's header counts against it.
    public static let tileBytesPerPage = 1792 << 10

    /// What a tile that could not be kept is counted as (its placeholder is shorter).
    static let lostTileBytes = 1024

    /// The name of page `page` (1-based): `index.html`, `index-2.html`, …
    public static func fileName(page: Int) -> String {
        page <= 1 ? fileName : "index-\(page).html"
    }

    /// What the names of the pages after the first start with: `index-`.
    public static let pagePrefix = "index-"

    /// The page number a file name is a sheet page's name for (`index.html` 1, `index-7.html`
    /// 7), or nil (temporary files, `index-1.html`, `index-02.html`, anything else).
    public static func pageNumber(_ name: String) -> Int? {
        if name == fileName { return 1 }
        guard name.hasPrefix(pagePrefix), name.hasSuffix(".html") else { return nil }
        let digits = name.utf8.dropFirst(pagePrefix.utf8.count).dropLast(5)
        guard let first = digits.first, first != 0x30, digits.count <= 9,
              digits.allSatisfy({ (0x30...0x39).contains($0) }), let page = Int(String(decoding: digits, as: UTF8.self)),
              page >= 2
        else { return nil }
        return page
    }

    /// The names of the sheet's pages in `directory`, in the order they are to be stored
    /// elsewhere (object storage): the later pages by number, `index.html` last, so that the
    /// first page never links a page not yet there. Empty without `index.html` (no sheet was
    /// written, or its write failed).
    public static func pageFiles(in directory: String) -> [String] {
        let names = pageNames(in: directory)
        guard names.contains(fileName) else { return [] }
        return names.filter { $0 != fileName }.sorted { (pageNumber($0) ?? 0) < (pageNumber($1) ?? 0) } + [fileName]
    }

    /// Of `names` (a listing of OUT, names relative to it), the later pages a sheet of `pages`
    /// pages does not have: those of an earlier, larger sheet.
    public static func stalePages<Names: Sequence<String>>(_ names: Names, pages: Int) -> [String] {
        names.filter { pageNumber($0).map { $0 > pages } ?? false }
    }

    /// The names in `directory` that are sheet pages (`pageNumber`).
    static func pageNames(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if pageNumber(name) != nil { names.append(name) }
        }
        return names
    }

    /// How many items each page holds: a new page starts when the current one has
    /// `itemsPerPage` items or the next tile (`sizes`, in page order; 0 for one not kept) would
    /// take its tiles over `bytesPerPage`, the first page's less `firstPageReserve` (its header).
    /// At least one page, which may be empty.
    static func paging<Sizes: Sequence<Int>>(
        sizes: Sizes, itemsPerPage: Int, bytesPerPage: Int, firstPageReserve: Int = 0
    ) -> [Int] {
        var counts = [0]
        var bytes = firstPageReserve
        for size in sizes {
            let tile = size > 0 ? size : lostTileBytes
            if counts[counts.count - 1] > 0, counts[counts.count - 1] >= itemsPerPage || bytes + tile > bytesPerPage {
                counts.append(0)
                bytes = 0
            }
            counts[counts.count - 1] += 1
            bytes += tile
        }
        return counts
    }

    /// Writes the pages of `layout` into `directory`, taking the tiles from `tiles`: each page
    /// atomically (`AtomicFile.stream`, not fsynced: the sheet can always be rebuilt from the
    /// manifest), the first (`index.html`) renamed last, after all the others, and only then are
    /// the pages of an earlier, larger sheet removed. So a run killed at any point leaves the old
    /// first page, whose links all work (pages it links are old or new, none missing), or the new
    /// sheet whole; a stale page is linked from none of the new pages. Throws the first error;
    /// nothing more is renamed after it.
    func write(_ layout: Layout, tiles: inout some IteratorProtocol<String>, to directory: String) throws(FileSystemError) {
        func writePage(_ page: Int) throws(FileSystemError) {
            let path = directory + "/" + Self.fileName(page: page)
            try AtomicFile.stream(to: path, durable: false) { (out: inout AtomicFileStream) throws(FileSystemError) in
                try render(page: page, of: layout, tiles: &tiles) { (text: String) throws(FileSystemError) in
                    try out.write(Array(text.utf8))
                }
                // Inside the first page's write: it is renamed last, once every other page is in place.
                if page == 1 { for later in layout.pieces.indices.dropFirst() { try writePage(later + 1) } }
            }
        }
        try writePage(1)
        for name in Self.stalePages(Self.pageNames(in: directory), pages: layout.pieces.count) {
            _ = unlink(directory + "/" + name)
        }
    }
}
