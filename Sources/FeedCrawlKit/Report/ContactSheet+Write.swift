import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

/// Writing the sheet of an archive through its backend, rewriting only the pages whose content
/// changed.
extension ContactSheet {
    /// The version of what `render` makes: a release that renders pages differently raises it,
    /// so that its first run rewrites every page (it is part of every fingerprint).
    static let rendererVersion = 3

    /// Where the fingerprints of the pages are kept: `OUT/.sheet.json` (kind `.state`).
    static let stateHandle = FileHandle(.state, ".sheet.json")!

    /// Largest state read (64 MiB; 10,000 feed pages take about 1.1 MB).
    static let maxStateBytes: Int64 = 64 << 20

    /// What saves are gathered into one `saveAll` before it is sent: at most this many bytes.
    static let batchBytes = 16 << 20

    /// Feed pages whose items are read and tiles made at once (2): that is most of the end of a
    /// cold run, and the task pool has both cores. Only pages that fit one sheet page's items
    /// (`pageItems`) share a turn; a larger one is made alone, so the sheet holds one large
    /// page's items at a time, as before.
    static let tilesAtOnce = 2

    /// The fingerprints of the sheet pages a run wrote (`OUT/.sheet.json`): for each feed page's
    /// sheet page (by its first part's name), the fingerprint of what it shows and how many
    /// parts it has. A page whose fingerprint is unchanged, and whose parts are all there, is not
    /// rendered again. Written (`encode`) and read (`read`) a page at a time: `write` keeps what
    /// it says of each feed page beside the page, never a dictionary of names (at 50,000 pages,
    /// `JSONDecoder` and its dictionary took 50 MB).
    enum State {
        /// What the state keeps of one feed page's sheet page.
        struct Page: Equatable, Sendable {
            /// `ContactSheet.fingerprint` of what the page shows (64 hex digits, kept in 32 bytes).
            var fingerprint: CompactHex
            /// Its parts (at least 1).
            var parts: Int
        }

        /// One feed page's sheet page: its first part's name and what the state keeps of it.
        struct Entry: Equatable, Sendable {
            var name: String
            var page: Page
        }

        /// A state of `entries` (in name order, one a name) as saved: sorted keys, one line,
        /// written as it goes (`JSONText`; `JSONEncoder` took 20 MB of intermediate objects).
        /// The text is made in one buffer of its size (counted first), handed over without a
        /// copy: a state of 50,000 pages is 6 MB, and growing it by doubling, then copying it to
        /// add the newline, held 19 MB at the end of a cold run.
        static func encode(_ entries: some Collection<Entry>) -> [UInt8] {
            // Each entry: `"name":{"fingerprint":"<64 hex>","parts":N},` (a name with escapes, or
            // a part count past 9 digits, grows the buffer once).
            let size = entries.reduce(32) { $0 + $1.name.utf8.count + 64 + 40 }
            var json = JSONText(capacity: size)
            json.beginObject()
            json.key("format")
            json.int(1)
            json.key("pages")
            json.beginObject()
            for entry in entries {
                json.key(entry.name)
                json.beginObject()
                json.key("fingerprint")
                json.string(entry.page.fingerprint.text)
                json.key("parts")
                json.int(entry.page.parts)
                json.endObject()
            }
            json.endObject()
            json.endObject()
            json.bytes.append(0x0A)
            return json.bytes
        }

        /// Hands each page of the state in `bytes` to `each`, in the order saved, and says whether
        /// `bytes` was a state: false when it is damaged, of another format, or not as `encode`
        /// writes it (every page is then rendered again; what `each` was given is not vouched
        /// for). Read as it is written, with no tree of values: `JSONDecoder` took 38 MB for a
        /// state of 50,000 pages.
        @discardableResult
        static func read(_ bytes: [UInt8], _ each: (String, Page) -> Void) -> Bool {
            var text = StateText(bytes: bytes)
            guard text.take("{\"format\":1,\"pages\":{") else { return false }
            if !text.take("}") {
                repeat {
                    guard let name = text.string(), text.take(":{\"fingerprint\":"), let fingerprint = text.string(),
                          text.take(",\"parts\":"), let parts = text.integer(), text.take("}")
                    else { return false }
                    each(name, Page(fingerprint: CompactHex(fingerprint), parts: parts))
                } while text.take(",")
                guard text.take("}") else { return false }
            }
            return text.take("}") && text.atEnd
        }
    }

    /// The feed pages' sheet pages by name: which feed page, and which of its parts, a name is.
    /// The names are the feed pages' own (`FeedPage.name`), looked up in name order, so that a
    /// sheet of 50,000 pages keeps no dictionary or set of names beside them.
    struct PageNames {
        /// Each feed page's first part's name, in feed page order.
        let names: [String]
        /// The feed pages by name.
        let order: [Int]
        private let pages: [FeedPage]

        init(_ pages: [FeedPage]) {
            self.pages = pages
            let names = pages.map(\.name)
            self.names = names
            order = names.indices.sorted { names[$0] < names[$1] }
        }

        /// The feed page whose first part is named `name`.
        func page(named name: String) -> Int? {
            var low = 0, high = order.count
            while low < high {
                let mid = (low + high) / 2
                if names[order[mid]] < name { low = mid + 1 } else { high = mid }
            }
            return low < order.count && names[order[low]] == name ? order[low] : nil
        }

        /// The feed page and part named `name` (`pageName`), or nil when it is none of theirs.
        func part(named name: String) -> (page: Int, part: Int)? {
            if let page = page(named: name) { return (page, 1) }
            // `index-<token>-p<n>-<part>.html`: the part's number, then the first part's name.
            guard name.hasSuffix(".html") else { return nil }
            let stem = name.utf8.dropLast(5)
            guard let dash = stem.lastIndex(of: UInt8(ascii: "-")),
                  let part = Int(String(decoding: stem[stem.index(after: dash)...], as: UTF8.self)), part > 1,
                  let page = page(named: String(decoding: stem[..<dash], as: UTF8.self) + ".html"),
                  ContactSheet.pageName(source: pages[page].source, page: pages[page].page, part: part) == name
            else { return nil }
            return (page, part)
        }
    }

    /// A cursor over the state's text, as `State.encode` writes it.
    private struct StateText {
        let bytes: [UInt8]
        var at = 0

        /// Whether `literal` comes next (it is then passed).
        mutating func take(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - at >= count else { return false }
            let matches = literal.withUTF8Buffer { bytes[at..<(at + count)].elementsEqual($0) }
            if matches { at += count }
            return matches
        }

        /// A JSON string; one with escapes is read by `JSONDecoder`.
        mutating func string() -> String? {
            guard at < bytes.count, bytes[at] == 0x22 else { return nil }
            var end = at + 1
            var escaped = false
            while end < bytes.count, bytes[end] != 0x22 {
                if bytes[end] == 0x5C { escaped = true; end += 1 }
                end += 1
            }
            guard end < bytes.count else { return nil }
            defer { at = end + 1 }
            if !escaped { return String(decoding: bytes[(at + 1)..<end], as: UTF8.self) }
            return try? JSONDecoder().decode(String.self, from: Data(bytes[at...end]))
        }

        /// A count: 1 to 9 digits.
        mutating func integer() -> Int? {
            var value = 0, digits = 0
            while at < bytes.count, (0x30...0x39).contains(bytes[at]), digits < 9 {
                value = value * 10 + Int(bytes[at] - 0x30)
                at += 1
                digits += 1
            }
            return digits > 0 ? value : nil
        }

        /// Whether the text ends here (a newline allowed).
        var atEnd: Bool { at == bytes.count || (at == bytes.count - 1 && bytes[at] == 0x0A) }
    }

    /// What `write` did.
    struct Written: Sendable, Equatable {
        /// Feed pages on the sheet.
        var pages = 0
        /// Feed pages rendered (their fingerprint changed, or a part was missing).
        var rendered = 0
        /// Files saved (sheet pages and `index.html`; a count: a cold run of 50,000 feed pages
        /// would hold their names).
        var saved = 0
        /// Files removed: pages no feed page of the archive has now (an earlier sheet's, an
        /// earlier release's `index-<n>.html`), and staged bodies a killed run left.
        var removed: [String] = []
    }

    /// The fingerprint of the sheet page of `page` between `previous` and `next`: everything its
    /// parts show that can change while the page's groups' lines do not (a group's lines never
    /// change once written, so its number stands for them): each group's number, whether the
    /// last run listed it (faded or not), which of its items a newer listing took (shadowed) and
    /// whether a newer record of one of its files exists (stale); the neighbours' source and page
    /// (the links at the top and bottom); the link base, whether the source is credited as
    /// Pixabay's, the page bounds and `rendererVersion`.
    ///
    /// A group's `lastListed` itself is not part of it, nor whether it was listed again since it
    /// was written: a tile shows the outcome the run that recorded the item gave it
    /// (`downloaded`, not the `fresh` a relisting reads), so a warm rerun that lists every
    /// settled group again changes no page but the one whose groups last listed changed.
    func fingerprint(_ page: FeedPage, previous: FeedPage?, next: FeedPage?) -> String {
        func key(_ page: FeedPage?) -> String {
            guard let page else { return "-" }
            return "\(page.source.utf8.count):\(page.source) \(page.page)"
        }
        var text = "feedcrawl contact sheet \(Self.rendererVersion)\n"
        text += "links \(linkBase.utf8.count):\(linkBase)\n"
        text += "pixabay \(pixabaySources.contains(page.source) ? 1 : 0)\n"
        text += "bounds \(pageItems) \(pageBytes)\n"
        text += "page " + key(page) + "\nprevious " + key(previous) + "\nnext " + key(next) + "\n"
        for entry in page.groups {
            text += "group \(entry.number) stale \(entry.stale == true ? 1 : 0) faded \(isFaded(entry) ? 1 : 0) shadowed"
            for position in entry.shadowed ?? [] { text += " \(position)" }
            text += "\n"
        }
        return SHA256.hex(Array(text.utf8))
    }

    /// Writes the contact sheet of `repository` (its committed group table) and `run` (the
    /// record its header shows; `repository.root.run` after a commit) through `backend`, links
    /// starting with `linkBase` (`--public-url`; default empty: relative), pages of at most
    /// `pageItems` items (default `itemsPerPage`) and `pageBytes` bytes of tiles (default
    /// `tileBytesPerPage`). `pagesSaved` (default none) is called once the changed pages are
    /// saved, before the state and `index.html` (`CrawlCheckpoint.sheetPagesSaved`).
    ///
    /// Only the sheet pages whose fingerprint (`fingerprint`) differs from the one `OUT/.sheet.json`
    /// keeps, or one of whose parts is not there, are rendered (each group's items read with one
    /// ranged load) and saved; `index.html` is saved every time (it holds the run's time). The
    /// order keeps every state a killed run leaves safe:
    /// 1. the state without the pages about to be rewritten (so that it never vouches for a
    ///    page a killed run changed), when it named one of them;
    /// 2. the pages, each whole (`Backend.save`), a batch at a time (`saveAll`);
    /// 3. the new state;
    /// 4. `index.html`;
    /// 5. the pages no feed page has now, and staged bodies a killed run left, removed.
    /// A state that is missing or damaged only costs rendering every page again.
    /// Throws the first error (nothing after it is saved).
    @discardableResult
    static func write(
        repository: Repository, run: RunRecord?, backend: any Backend, linkBase: String = "",
        pageItems: Int = itemsPerPage, pageBytes: Int = tileBytesPerPage, pagesSaved: (@Sendable () -> Void)? = nil
    ) async throws -> Written {
        var sheet = ContactSheet(run: run, linkBase: Self.linkBase(linkBase), pageItems: pageItems, pageBytes: pageBytes)
        sheet.forgot = repository.root.forgot
        let pages = feedPages(repository.table)
        let byName = PageNames(pages)
        let names = byName.names
        let fingerprints = pages.indices.map { index in
            CompactHex(sheet.fingerprint(
                pages[index], previous: index > 0 ? pages[index - 1] : nil, next: index + 1 < pages.count ? pages[index + 1] : nil))
        }
        // What the old state kept of each feed page, and how many pages it named.
        var old = [State.Page?](repeating: nil, count: pages.count)
        var oldCount: Int?
        if let bytes = try? await backend.load(stateHandle, range: nil, maxBytes: maxStateBytes) {
            var count = 0
            if State.read(bytes, { name, page in
                count += 1
                if let index = byName.page(named: name) { old[index] = page }
            }) {
                oldCount = count
            } else {
                old = [State.Page?](repeating: nil, count: pages.count)
            }
        }
        // The parts there are, by feed page (`page << 32 | part`); files of the sheet's kind that
        // are no feed page's part; staged bodies a killed run left.
        var present = Set<Int>()
        var strays: [String] = []
        var leftovers: [FileHandle] = []
        try await backend.list(.sheet, prefix: "") { page in
            for info in page {
                if info.handle.isPartial {
                    leftovers.append(info.handle)
                } else if let (index, part) = byName.part(named: info.handle.name) {
                    present.insert(index << 32 | part)
                } else if info.handle.name != fileName {
                    strays.append(info.handle.name)
                }
            }
        }

        // Each feed page's parts: kept from the old state, or counted when it is rendered.
        var partCounts = [Int](repeating: 0, count: pages.count)
        var render: [Int] = []
        for index in pages.indices {
            if let kept = old[index], kept.fingerprint == fingerprints[index], kept.parts >= 1,
               (1...kept.parts).allSatisfy({ present.contains(index << 32 | $0) }) {
                partCounts[index] = kept.parts
            } else {
                render.append(index)
            }
        }
        /// The state of the pages with a count of parts, in name order.
        func state() -> [UInt8] {
            State.encode(byName.order.lazy.filter { partCounts[$0] > 0 }.map {
                State.Entry(name: names[$0], page: State.Page(fingerprint: fingerprints[$0], parts: partCounts[$0]))
            })
        }
        var written = Written(pages: pages.count, rendered: render.count)
        if render.contains(where: { old[$0] != nil }) {
            // The pages kept: what the old state said of them (the pages no feed page has now
            // are left out; they are removed at the end).
            try await backend.save(stateHandle, bytes: state(), options: SaveOptions())
        }
        // Every page kept, and no other in the old state: the state would be saved as it is.
        let stateUnchanged = render.isEmpty && oldCount == pages.count
        old = []

        var batch: [SaveRequest] = []
        var batchSize = 0
        func send() async throws {
            guard !batch.isEmpty else { return }
            let errors = await backend.saveAll(batch)
            if let error = errors.compactMap({ $0 }).first { throw error }
            written.saved += batch.count
            batch.removeAll()
            batchSize = 0
        }
        var firstTiles: Tiles?
        var position = 0
        while position < render.count {
            // The next turn: one page, or up to `tilesAtOnce` small ones, their tiles made at once.
            var turn = [render[position]]
            while turn.count < tilesAtOnce, position + turn.count < render.count, pages[turn[0]].items <= sheet.pageItems,
                  pages[render[position + turn.count]].items <= sheet.pageItems {
                turn.append(render[position + turn.count])
            }
            position += turn.count
            let made = try await withThrowingTaskGroup(of: (Int, Tiles).self) { group in
                for index in turn {
                    group.addTask { [sheet, pages] in
                        (index, sheet.tiles(of: pages[index], items: try await items(of: pages[index], in: repository)))
                    }
                }
                var made: [(Int, Tiles)] = []
                for try await tiles in group { made.append(tiles) }
                return made.sorted { $0.0 < $1.0 }
            }
            for (index, tiles) in made {
                let page = pages[index]
                if index == 0 { firstTiles = tiles }
                let parts = sheet.parts(tiles)
                for part in 1...parts.count {
                    let html = sheet.render(
                        tiles, part: part, parts: parts, previous: index > 0 ? pages[index - 1] : nil,
                        next: index + 1 < pages.count ? pages[index + 1] : nil)
                    let name = pageName(source: page.source, page: page.page, part: part)
                    guard let handle = FileHandle(.sheet, name) else {
                        throw BackendError(.refused, "save", location: name, reason: "not a name of a sheet page")
                    }
                    batch.append(SaveRequest(handle, body: .bytes(Array(html.utf8))))
                    batchSize += html.utf8.count
                    if batch.count >= max(2, 2 * backend.properties.connections) || batchSize >= batchBytes { try await send() }
                }
                partCounts[index] = parts.count
            }
        }
        try await send()
        pagesSaved?()
        if !stateUnchanged {
            try await backend.save(stateHandle, bytes: state(), options: SaveOptions())
        }

        if firstTiles == nil, let first = pages.first {
            firstTiles = sheet.tiles(of: first, items: try await items(of: first, in: repository))
        }
        let index = sheet.renderIndex(pages, first: firstTiles, generatedAt: repository.root.generatedAt)
        try await backend.save(FileHandle(.sheet, fileName)!, bytes: Array(index.utf8), options: SaveOptions())
        written.saved += 1

        // Strays, and parts past a feed page's count.
        var gone = strays
        for key in present where key & 0xFFFF_FFFF > max(1, partCounts[key >> 32]) {
            gone.append(pageName(source: pages[key >> 32].source, page: pages[key >> 32].page, part: key & 0xFFFF_FFFF))
        }
        for name in gone.sorted() {
            guard let handle = FileHandle(.sheet, name) else { continue }
            try await backend.remove(handle)
            written.removed.append(name)
        }
        for handle in leftovers {
            try await backend.remove(handle)
            written.removed.append(handle.name)
        }
        return written
    }

    /// The effective items of each of `page`'s groups, in id order.
    static func items(of page: FeedPage, in repository: Repository) async throws -> [[ManifestItem]] {
        var items: [[ManifestItem]] = []
        for entry in page.groups {
            let group = try await repository.items(of: entry, asRecorded: true)
            // Sorted by position, then gathered: an item is a large value, and a sort that
            // moves items copies each several times (1 % of a cold run's instructions).
            let order = group.indices.sorted { ManifestItem.compareIDs(group[$0].id, group[$1].id) < 0 }
            items.append(order.map { group[$0] })
        }
        return items
    }

}

extension ContactSheet {
    /// `write` (with the default page bounds; `pagesSaved` as there) in a task of its own, so that a run stopped by a
    /// signal still writes the sheet of what it committed; its failure as the run's message,
    /// `cannot write the contact sheet: …`, or nil when it was written.
    static func writeReporting(
        repository: Repository, run: RunRecord?, backend: any Backend, linkBase: String,
        pagesSaved: (@Sendable () -> Void)? = nil
    ) async -> String? {
        let task = Task { () async -> String? in
            do {
                try await write(repository: repository, run: run, backend: backend, linkBase: linkBase, pagesSaved: pagesSaved)
                return nil
            } catch {
                return "cannot write the contact sheet: \(error)"
            }
        }
        return await task.value
    }
}
