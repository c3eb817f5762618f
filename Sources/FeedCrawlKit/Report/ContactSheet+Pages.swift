#if canImport(Glibc)
import Glibc
#endif

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

    /// The files of a sheet being written: one `ChunkedFileWriter` a page, opened when its first
    /// text comes. Each later page is renamed into place when the next one starts; the first
    /// (`index.html`) only at `commit`, after all the others, and only then are the pages of an
    /// earlier, larger sheet removed. So a run killed at any point leaves the old first page,
    /// whose links all work (pages it links are old or new, none missing), or the new sheet
    /// whole; a stale page is linked from none of the new pages.
    final class PageFiles {
        private let directory: String
        private var first: ChunkedFileWriter?
        private var current: (page: Int, writer: ChunkedFileWriter)?
        private var failure: FileSystemError?
        private var pages = 0

        init(directory: String) {
            self.directory = directory
        }

        /// Appends `text` to page `page`; pages come in order.
        func append(page: Int, _ text: String) {
            guard failure == nil else { return }
            if page == 1 {
                if first == nil { first = open(1) }
                first?.append(text)
                return
            }
            if current?.page != page {
                finishCurrent()
                guard failure == nil, let writer = open(page) else { return }
                current = (page, writer)
            }
            current?.writer.append(text)
        }

        /// Renames the last later page and then the first into place, and removes the pages
        /// after the last; throws the first error (nothing more is renamed after it).
        func commit() throws(FileSystemError) {
            finishCurrent()
            if let failure { throw failure }
            guard let first else { return }
            try first.commit()
            for name in ContactSheet.stalePages(ContactSheet.pageNames(in: directory), pages: max(pages, 1)) {
                _ = unlink(directory + "/" + name)
            }
        }

        private func open(_ page: Int) -> ChunkedFileWriter? {
            do throws(FileSystemError) {
                pages = max(pages, page)
                return try ChunkedFileWriter(path: directory + "/" + ContactSheet.fileName(page: page))
            } catch {
                failure = error
                return nil
            }
        }

        private func finishCurrent() {
            guard let (_, writer) = current else { return }
            current = nil
            guard failure == nil else { return }
            do throws(FileSystemError) { try writer.commit() } catch { failure = error }
        }
    }
}
