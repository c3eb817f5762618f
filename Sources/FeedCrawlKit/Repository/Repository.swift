import FeedCrawlSupport
import FeedCrawlStorage
import FoundationEssentials

/// An archive in format 3, opened on a `Backend` (`docs/repository.md`): the root, the group
/// table, and on demand the indexes and groups. One work (a crawl, a merge, an inspection) at a
/// time; the caller holds the lock.
///
/// Open: the root is read (`manifest.json`, or a shard's); a damaged or missing one falls back
/// to the newest whole copy in `archive/roots/`, and with none the archive is rebuilt from the
/// groups of every segment. Journal files no root names (an unfinished run's) are adopted: their
/// groups join the table and the indexes.
final class Repository: @unchecked Sendable {
    let backend: any Backend
    /// `""` for OUT's own root, `shards/N/K/` for a shard's.
    let state: String
    private(set) var root: RepositoryRoot
    /// The group table (a copy; it changes under the lock).
    var table: GroupTable { lock.withLock { groupTable } }
    /// What `open` had to do, for the run's messages.
    private(set) var notes: [String] = []
    /// Groups adopted from an unfinished run's journal.
    private(set) var adopted = 0
    /// Journal files adopted (an unfinished run's, or a running one's for a reader); what a run
    /// says of them is its own (`Crawler.openRepository`), a reader's its own.
    private(set) var adoptedJournalFiles = 0
    /// Journal files adopted, and segments of groups absorbed from shards (named by the next root).
    private var adoptedSegments: [RepositoryRoot.Segment] = []
    /// For a shard: OUT's own archive, which lookups and settled pages also consult (what plain
    /// runs and earlier merges stored is reused). Set before the crawl; default nil.
    var base: Repository?

    let lock = Lock()
    /// Index entries of groups this work adopted or absorbed (not in the tables yet).
    let adoptedItems = IndexSpill()
    let adoptedFiles = IndexSpill()
    /// `adoptedFiles` sorted, newest entry of each key (`names`), made when first asked for.
    var adoptedFileList: [IndexEntry]?
    /// The shards' archives (`shardArchives`), opened when first asked for.
    var shardArchivesOpened: [Repository]?
    // Guarded by `lock`.
    /// The index tables' readers, newest first.
    private var readers: [IndexTable.Kind: [IndexFile.Reader]] = [:]
    /// Groups this work adopted or absorbed.
    private var joined: Set<UInt32> = []
    private var groupTable: GroupTable
    private var groupCache: [UInt32: [ManifestItem]] = [:]
    /// Groups this work listed again without work (`settleIfUnchanged`).
    private var relisted: Set<UInt32> = []
    private var groupCacheOrder: [UInt32] = []

    /// The root's name for a shard's state (`shards/N/K/`) or OUT's (`""`).
    static func rootHandle(state: String) -> FileHandle {
        FileHandle(.state, state + CacheLayout.manifestFileName)!
    }

    init(backend: any Backend, state: String, root: RepositoryRoot, table: GroupTable) {
        self.backend = backend
        self.state = state
        self.root = root
        groupTable = table
    }

    // MARK: Opening

    /// Opens the archive whose root is `state`'s (`""`: OUT's). A damaged root with no whole copy
    /// to fall back on and no group to rebuild from (segments, journal files) throws its
    /// `DamagedRoot`: it is not taken for an empty archive.
    static func open(_ backend: any Backend, state: String = "") async throws -> Repository {
        let handle = rootHandle(state: state)
        var notes: [String] = []
        var root: RepositoryRoot?
        var damaged: DamagedRoot?
        do {
            let bytes = try await backend.load(handle, range: nil, maxBytes: maxRootBytes)
            switch try RepositoryRoot.decode(bytes) {
            case .root(let found): root = found
            case .manifest:
                throw OlderManifest()
            }
        } catch let error as BackendError where error.kind == .refused {
            // Larger than any root: an earlier release's manifest (671 MB at 1,000,000 items),
            // which `convert` reads as a stream (and finds damaged when it is not one).
            guard let size = try await backend.stat(handle)?.size, size > maxRootBytes else { throw error }
            throw OlderManifest()
        } catch let error as BackendError where error.kind == .notFound {
            root = nil
        } catch let damage as DamagedRoot {
            notes.append("\(backend.location(handle)) is damaged (\(damage)); using the newest whole copy in archive/roots/")
            damaged = damage
            root = nil
        }
        let copies = try await rootCopies(backend, state: state)
        if root == nil, let copy = copies.last {
            root = copy
            if notes.isEmpty, !copies.isEmpty {
                notes.append("\(backend.location(handle)) was missing; using its copy from archive/\(copy.copyName)")
            }
        }
        let repository: Repository
        if let root {
            let table = try await loadTable(backend, root: root)
            repository = Repository(backend: backend, state: state, root: root, table: table)
        } else {
            repository = Repository(backend: backend, state: state, root: RepositoryRoot(generatedAt: Date()), table: GroupTable())
            if state.isEmpty { try await repository.rebuildIfSegments(&notes) }
        }
        repository.notes = notes
        try await repository.adoptJournal()
        if let damaged, root == nil, repository.adopted == 0 { throw damaged }
        return repository
    }

    /// A version-1 or version-2 manifest where the root should be: the caller converts it.
    struct OlderManifest: Error {}

    /// Largest root read (16 MiB).
    static let maxRootBytes: Int64 = 16 << 20
    /// Largest group table read (64 MiB).
    static let maxTableBytes: Int64 = 64 << 20
    /// How many copies of roots are kept in `archive/roots/`.
    static let keptRoots = 4

    /// The whole copies of `state`'s roots in `archive/roots/`, oldest first.
    static func rootCopies(_ backend: any Backend, state: String) async throws -> [RepositoryRoot] {
        let folder = "roots/" + state
        var names: [String] = []
        try await backend.list(.archive, prefix: folder) { page in
            for info in page where !info.handle.isPartial {
                let rest = info.handle.name.dropFirst(folder.count)
                if !rest.contains("/"), rest.hasSuffix(".json") { names.append(info.handle.name) }
            }
        }
        var roots: [RepositoryRoot] = []
        for name in names.sorted() {
            guard let handle = FileHandle(.archive, name),
                  let bytes = try? await backend.load(handle, range: nil, maxBytes: maxRootBytes),
                  case .root(let root)? = try? RepositoryRoot.decode(bytes) else { continue }
            roots.append(root)
        }
        return roots
    }

    /// How much of the group table one load reads (4 MiB).
    static let tableRange: Int64 = 4 << 20

    private static func loadTable(_ backend: any Backend, root: RepositoryRoot) async throws -> GroupTable {
        guard let name = root.groups, let handle = FileHandle(.archive, name) else { return GroupTable() }
        // In ranges: a table of 50,000 groups is 26 MB of text.
        guard let size = try await backend.stat(handle)?.size, size <= maxTableBytes else {
            return try GroupTable.decode(try await backend.load(handle, range: nil, maxBytes: maxTableBytes))
        }
        var reader = GroupTable.Reader(expectedBytes: size)
        var offset: Int64 = 0
        while offset < size {
            let end = min(size, offset + tableRange)
            try reader.read(try await backend.load(handle, range: offset..<end, maxBytes: end - offset))
            offset = end
        }
        return try reader.finish()
    }

    /// With no root and no copy: the groups of every segment, the newest listing of each page
    /// winning, make the table (the indexes are rebuilt from them).
    private func rebuildIfSegments(_ notes: inout [String]) async throws {
        var names: [String] = []
        for folder in ["segments/", "journal/"] {
            try await backend.list(.archive, prefix: folder) { page in
                names += page.filter { !$0.handle.isPartial }.map(\.handle.name)
            }
        }
        let journal = names.filter { $0.hasPrefix("journal/") }
        let segments = names.filter { $0.hasPrefix("segments/") }
        guard !segments.isEmpty else { return }  // journal files alone are adopted as usual
        notes.append("no root and no copy of one: rebuilding the archive from its \(segments.count + journal.count) segments")
        for name in segments { try await adopt(segment: name) }
    }

    /// Adopts the journal files of this state (`journal/`, a shard's `journal/shards/N/K/`)
    /// that no root names: an unfinished run's groups (or a run's going on now, for a reader).
    private func adoptJournal() async throws {
        var names: [String] = []
        // Named by the root, or retired by it (its groups moved on): not an unfinished run's.
        let named = root.archiveFiles.union(root.retired.keys)
        let folder = "journal/" + state
        try await backend.list(.archive, prefix: folder) { page in
            for info in page where !info.handle.isPartial && !named.contains(info.handle.name)
                && !info.handle.name.dropFirst(folder.count).contains("/") {
                names.append(info.handle.name)
            }
        }
        guard !names.isEmpty else { return }
        for name in names.sorted() { try await adopt(segment: name) }
        adoptedJournalFiles = names.count
    }

    /// Reads every whole group of the segment `name` into the table (each as the newest listing
    /// of its page, unless the table has a newer one) and its items into the indexes.
    private func adopt(segment name: String) async throws {
        guard let handle = FileHandle(.archive, name) else { return }
        let bytes = try await backend.load(handle, range: nil, maxBytes: 1 << 30)
        for (header, offset, length) in GroupCodec.scan(bytes) {
            guard lock.withLock({ groupTable.entry(header.number) }) == nil else { continue }
            let slice = Array(bytes[Int(offset)..<Int(offset + length)])
            guard let (_, items) = try? GroupCodec.decode(slice) else { continue }
            let entry = GroupEntry(header: header, segment: name, offset: offset, length: length, items: items)
            let (itemKeys, fileKeys) = GroupEntry.keys(items, group: header.number)
            adoptedItems.append(itemKeys)
            adoptedFiles.append(fileKeys)
            lock.withLock {
                adoptedFileList = nil
                groupTable.put(entry)
                joined.insert(header.number)
            }
            root.nextGroup = max(root.nextGroup, header.number &+ 1)
            adopted += 1
        }
        if name.hasPrefix("journal/") {
            adoptedSegments.append(RepositoryRoot.Segment(name: name, bytes: Int64(bytes.count)))
        } else if !root.segments.contains(where: { $0.name == name }) {
            root.segments.append(RepositoryRoot.Segment(name: name, bytes: Int64(bytes.count)))
        }
    }

    // MARK: Reading

    /// The items of `entry` as they read now: `page` its page, `lastSeen` the start of the last
    /// run that listed it (none for a group converted from items an earlier release recorded
    /// without one: listed at 0), `downloaded`/`revalidated` read as `fresh` once it was listed
    /// again, an image whose URL a later group stored anew with that record's file facts
    /// (`GroupEntry.stale`). Shadowed items (a newer group lists them) are left out unless
    /// `shadowed`. With `asRecorded` (default false) images keep the status the run that wrote
    /// the group gave them (the contact sheet's tiles: a relisting then changes none of them).
    func items(of entry: GroupEntry, shadowed: Bool = false, asRecorded: Bool = false) async throws -> [ManifestItem] {
        var items = try await rawItems(entry)
        if entry.stale == true { items = try await newestFacts(items, of: entry) }
        let seen = entry.lastListed > 0 ? Date(timeIntervalSince1970: Double(entry.lastListed / 1000)) : nil
        // In place (one array, not two: a group of 20,000 items is ten megabytes of them).
        var kept = 0
        for position in items.indices {
            if !shadowed, entry.isShadowed(position) { continue }
            items[position].page = entry.page
            items[position].lastSeen = seen
            if entry.relisted, !asRecorded {
                for index in items[position].images.indices where items[position].images[index].status == .downloaded
                    || items[position].images[index].status == .revalidated {
                    items[position].images[index].status = .fresh
                }
            }
            if kept != position { items.swapAt(kept, position) }
            kept += 1
        }
        items.removeLast(items.count - kept)
        return items
    }

    /// The item at `position` of group `entry`, as it reads now (shadowed or not).
    func item(of entry: GroupEntry, at position: Int) async throws -> ManifestItem? {
        let all = try await items(of: entry, shadowed: true)
        return position < all.count ? all[position] : nil
    }

    /// `raw` (the items of the stale group `entry`) with each stored image's file facts taken
    /// from the newest record of its URL when another live group holds it (the file index's), its
    /// own status and error kept: a later run fetched the URL anew (and the earlier copy, under
    /// another name, is gone).
    private func newestFacts(_ raw: [ManifestItem], of entry: GroupEntry) async throws -> [ManifestItem] {
        var items = raw
        for position in items.indices {
            for slot in items[position].images.indices {
                let image = items[position].images[slot]
                guard let file = image.file, let key = CacheKey(file: file), let hit = try await lookup(.files, key.prefix),
                      hit.group != entry.number, let holder = table.entry(hit.group) else { continue }
                let newer = try await rawItems(holder)
                guard hit.item < newer.count, hit.image < newer[hit.item].images.count else { continue }
                let record = newer[hit.item].images[hit.image]
                guard record.url == image.url, record.file != nil else { continue }
                var outcome = record.outcome
                outcome.status = image.status
                outcome.error = image.error
                items[position].images[slot].outcome = outcome
            }
        }
        return items
    }

    /// For a reader: the earlier copies of the items the adopted groups (an unfinished or running
    /// run's journal) list again are shadowed in memory, as the next commit shadows them, so
    /// that counts and listings read what that run listed. Nothing is saved.
    func shadowAdopted() async throws {
        guard adoptedItems.count > 0 else { return }
        let mine = lock.withLock { joined }
        try await shadow(try await shadowing(adoptedItems.sortedRuns(), newCount: adoptedItems.count, mine: mine))
    }

    /// How much of a group `rawItems` reads at once (1 MiB).
    static let groupReadBytes: Int64 = 1 << 20

    /// The group's item lines as written (a few groups of up to 1,000 items are cached).
    func rawItems(_ entry: GroupEntry) async throws -> [ManifestItem] {
        if let cached = lock.withLock({ groupCache[entry.number] }) { return cached }
        guard let handle = FileHandle(.archive, entry.segment) else { return [] }
        // A mebibyte at a time: a group of 20,000 items (ten megabytes) is never held whole
        // beside its items.
        var decoder = GroupCodec.Decoder()
        var offset = entry.offset
        let end = entry.offset + entry.length
        repeat {
            let next = min(end, offset + Self.groupReadBytes)
            try decoder.add(try await backend.load(handle, range: offset..<next, maxBytes: next - offset)[...])
            offset = next
        } while offset < end
        let (_, items) = try decoder.finish()
        // Groups of up to 1,000 items are kept (16 at most): a feed page of 20,000 would keep
        // ten megabytes of items for the rest of the process.
        guard items.count <= 1000 else { return items }
        lock.withLock {
            groupCache[entry.number] = items
            groupCacheOrder.append(entry.number)
            if groupCacheOrder.count > 16 { groupCache.removeValue(forKey: groupCacheOrder.removeFirst()) }
        }
        return items
    }

    /// The newest stored record of the image whose URL key is `key` (its file's facts), or nil.
    func archivedImage(_ key: CacheKey) async throws -> ImageRecord? {
        guard let hit = try await lookup(.files, key.prefix), let entry = table.entry(hit.group) else {
            return try await base?.archivedImage(key)
        }
        let raw = try await rawItems(entry)
        guard hit.item < raw.count, hit.image < raw[hit.item].images.count else { return nil }
        let image = raw[hit.item].images[hit.image]
        guard let file = image.file, CacheKey(file: file)?.hex == key.hex else { return nil }
        return image
    }

    /// Where the item `source`/`id` is effective: its group and position.
    func locate(source: String, id: String) async throws -> (entry: GroupEntry, position: Int)? {
        guard let hit = try await lookup(.items, itemIndexKey(source: source, id: id)), let entry = table.entry(hit.group)
        else { return nil }
        let raw = try await rawItems(entry)
        guard hit.item < raw.count, raw[hit.item].source == source, raw[hit.item].id == id else { return nil }
        return (entry, hit.item)
    }

    /// The readers of the index `kind`'s tables (the root's), newest first, opened on first use.
    func tables(_ kind: IndexTable.Kind) async throws -> [IndexFile.Reader] {
        if let open = lock.withLock({ readers[kind] }) { return open }
        var opened: [IndexFile.Reader] = []
        for name in (kind == .items ? root.itemIndex : root.fileIndex).reversed() {
            opened.append(try await IndexFile.Reader(backend: backend, name: name, kind: kind))
        }
        lock.withLock { readers[kind] = readers[kind] ?? opened }
        return lock.withLock { readers[kind] ?? opened }
    }

    /// The newest entry for `key` in the index `kind` (its tables, newest first): one block read
    /// a table, at most.
    func lookup(_ kind: IndexTable.Kind, _ key: UInt64) async throws -> IndexEntry? {
        for reader in try await tables(kind) {
            if let hit = try await reader.lookup(key) { return hit }
        }
        return nil
    }

    /// Every entry of the index `kind`, newest first for each key, with this work's new ones
    /// (`extra`), merged from the tables a megabyte at a time: `body` gets the newest entry of
    /// each key whose group is live.
    func forEachLive(
        _ kind: IndexTable.Kind, extra: [EntryStream] = [], _ body: (IndexEntry) async throws -> Void
    ) async throws {
        let table = self.table
        var merge = EntryMerge(try await tables(kind).map { $0.stream() } + extra)
        var last: UInt64?
        while let (entry, _) = try await merge.pop() {
            guard entry.key != last else { continue }
            last = entry.key
            if table.entry(entry.group) != nil { try await body(entry) }
        }
    }

    // MARK: The crawl

    /// When `source`'s `page` is settled — the table's newest group of it has this `digest`
    /// and `recipe`, no shadowed item, nothing to retry, and every stored image younger than
    /// `ttl` seconds at the start of the run (`run`, ms) — lists its group again (its items'
    /// `lastSeen` becomes `run`; `downloaded` reads `fresh`) and returns it. Thread-safe.
    func settleIfUnchanged(
        source: String, page: Int, digest: String, recipe: String, run: Int64, ttl: Double, fetched: Double? = nil
    ) -> GroupEntry? {
        // A shard's page may be settled in OUT's own archive: its group is then listed again in
        // the shard's table (same number, same segment), and the merge carries that over.
        let inBase = base.flatMap { base in base.lock.withLock { base.groupTable.newest(source: source, page: page) } }
        return lock.withLock {
            let own = groupTable.newest(source: source, page: page)
            let candidate = [own, inBase].compactMap { $0 }.max { $0.lastListed < $1.lastListed }
            guard let entry = candidate, entry.digest == digest,
                  entry.recipe == recipe, !entry.retry, entry.shadowed?.isEmpty ?? true else { return nil }
            if let oldest = entry.oldestFetch, Double(oldest) + ttl <= Double(run) / 1000 { return nil }
            var listed = entry
            if entry.lastListed < run { listed.relist(at: run) }
            if let fetched { listed.fetched = max(listed.fetched ?? 0, fetched) }
            groupTable.put(listed)
            relisted.insert(entry.number)
            return listed
        }
    }

    /// When the page of `source` numbered `page` would be answered from the page cache (the
    /// table's newest group of it was listed from the body `request` fetched less than
    /// `pageTTL` seconds before `run`) and that group is settled (`settleIfUnchanged` without a
    /// digest: the kept body is the one it was listed from), lists it again and returns it: the
    /// page is not even read. Without `settle` (default true) it is returned and not listed: a
    /// shard reads what paging needs of a page another shard lists. Thread-safe.
    func settleKeptPage(
        source: String, page: Int, request: String, pageTTL: Double, recipe: String, run: Int64, ttl: Double, settle: Bool = true
    ) -> GroupEntry? {
        let now = Double(run) / 1000
        let inBase = base.flatMap { base in base.lock.withLock { base.groupTable.newest(source: source, page: page) } }
        let candidate: GroupEntry? = lock.withLock {
            [groupTable.newest(source: source, page: page), inBase].compactMap { $0 }.max { $0.lastListed < $1.lastListed }
        }
        guard let entry = candidate, entry.request == request, let fetched = entry.fetched, now - fetched < pageTTL,
              fetched <= now + 60, let digest = entry.digest else { return nil }
        guard settle else { return entry }
        return settleIfUnchanged(source: source, page: page, digest: digest, recipe: recipe, run: run, ttl: ttl)
    }

    // MARK: Committing

    /// Marks shadowed the items at the given positions of earlier groups (a newer group lists
    /// them: the newest listing wins), taking them out of their groups' counts; reads each such
    /// group once.
    private func shadow(_ positions: [UInt32: [Int]]) async throws {
        for (number, places) in positions {
            guard let entry = table.entry(number) else { continue }
            let items = try await items(of: entry, shadowed: true)
            lock.withLock {
                groupTable.update(number) { group in
                    for place in places where place < items.count { _ = group.shadow(place, item: items[place]) }
                }
            }
        }
    }

    /// Walks this work's new entries of index `kind` (`runs`, sorted), each key's newest first:
    /// `body` gets every new entry, whether an earlier new entry had its key (`repeated`), and
    /// for the first one of a key the index's newest entry of it (`earlier`, nil when none).
    /// Point lookups when the new entries are few against the index, a merge with the index's
    /// tables otherwise.
    private func forEachNewKey(
        _ runs: [EntryStream], kind: IndexTable.Kind, newCount: Int64,
        _ body: (_ entry: IndexEntry, _ repeated: Bool, _ earlier: IndexEntry?) throws -> Void
    ) async throws {
        let tables = try await tables(kind)
        let indexed = tables.reduce(Int64(0)) { $0 + $1.count }
        var news = EntryMerge(runs)
        var olds = indexed > 0 && newCount * 64 >= indexed ? EntryMerge(tables.map { $0.stream() }) : nil
        var oldHead = try await olds?.pop()?.entry
        var last: UInt64?
        while let (entry, _) = try await news.pop() {
            if entry.key == last {
                try body(entry, true, nil)
                continue
            }
            last = entry.key
            var earlier: IndexEntry?
            if olds != nil {
                while let head = oldHead, head.key < entry.key { oldHead = try await olds?.pop()?.entry }
                if let head = oldHead, head.key == entry.key { earlier = head }
            } else if indexed > 0 {
                earlier = try await lookup(kind, entry.key)
            }
            try body(entry, false, earlier)
        }
    }

    /// The shadowing this work's new item entries (`runs`, sorted) cause: an earlier group's
    /// entry of one of their keys (the index's newest), and an older new group's entry of a key
    /// a newer new group lists.
    private func shadowing(_ runs: [EntryStream], newCount: Int64, mine: Set<UInt32>) async throws -> [UInt32: [Int]] {
        var positions: [UInt32: [Int]] = [:]
        guard newCount > 0 else { return positions }
        let table = self.table
        try await forEachNewKey(runs, kind: .items, newCount: newCount) { entry, repeated, earlier in
            if repeated {
                positions[entry.group, default: []].append(entry.item)  // an older new listing
            } else if let earlier, !mine.contains(earlier.group), earlier.group != entry.group, table.entry(earlier.group) != nil {
                positions[earlier.group, default: []].append(earlier.item)
            }
        }
        return positions
    }

    /// The files and bytes the archive names once this work's new file entries (`runs`) join:
    /// each new key replaces the index's newest entry of it (its bytes), or adds a file. Also the
    /// live groups outside `mine` whose record of a file is older than the new one (the same URL
    /// stored under another name, or fetched again): they are marked stale (`GroupEntry.stale`).
    private func fileTotals(_ runs: [EntryStream], newCount: Int64, files: Int, bytes: Int64, mine: Set<UInt32>) async throws
        -> (files: Int, bytes: Int64, stale: Set<UInt32>)
    {
        var stale = Set<UInt32>()
        var files = files, bytes = bytes
        let table = self.table
        try await forEachNewKey(runs, kind: .files, newCount: newCount) { entry, repeated, earlier in
            guard !repeated else { return }
            if let earlier, table.entry(earlier.group) != nil {
                bytes += Int64(entry.bytes) - Int64(earlier.bytes)
                if !mine.contains(earlier.group),
                   earlier.fileExtension != entry.fileExtension || earlier.fetched != entry.fetched || earlier.bytes != entry.bytes {
                    stale.insert(earlier.group)
                }
            } else {
                files += 1
                bytes += Int64(entry.bytes)
            }
        }
        return (files, bytes, stale)
    }

    /// The feed pages `groups` list, each once, in the table's order.
    static func distinctPages(_ groups: [GroupEntry]) -> [(source: String, page: Int)] {
        var pages = groups.map { (source: $0.source, page: $0.page) }
        pages.sort { a, b in
            if a.source != b.source { return ManifestItem.compareBytes(a.source.utf8, b.source.utf8) ?? 0 < 0 }
            return a.page < b.page
        }
        var distinct: [(source: String, page: Int)] = []
        for page in pages where distinct.last.map({ $0.source != page.source || $0.page != page.page }) ?? true {
            distinct.append(page)
        }
        return distinct
    }

    /// Shadows the placeholders of the earlier listings of the pages `written` lists again (each
    /// once, `distinctPages`): an
    /// element a feed page listed without a usable id is recorded under its place on the page
    /// (`FeedItem.isSyntheticID`, no image), and a new listing of the page lists whatever is there
    /// now (the element whole, under its id, or a placeholder again). Reads only the earlier
    /// groups of those pages that hold a rejected item (a placeholder is one).
    func supersedePlaceholders(_ written: [(source: String, page: Int)], except: Set<UInt32>) async throws {
        for page in written {
            let earlier = lock.withLock { groupTable.groups(source: page.source, page: page.page) }
                .filter { !except.contains($0.number) && $0.liveItems > 0 && ($0.counts[ItemStatus.rejected.rawValue] ?? 0) > 0 }
            for entry in earlier {
                let raw = try await rawItems(entry)
                for (position, item) in raw.enumerated()
                where item.images.isEmpty && FeedItem.isSyntheticID(item.id) && !entry.isShadowed(position) {
                    lock.withLock { groupTable.update(entry.number) { _ = $0.shadow(position, item: item) } }
                }
            }
        }
    }


    /// What a commit did.
    struct Committed: Sendable {
        var root: RepositoryRoot
        /// This work's items and images by status, per source: the groups it wrote and those it
        /// listed again.
        var listed: [String: RepositoryRoot.SourceTotals] = [:]
        /// Archive files retired long enough ago that no kept root names them, removed.
        var removed: Int
        /// Images `capBytes` evicted (their groups left the archive), and their bytes.
        var evictedFiles = 0
        var evictedBytes: Int64 = 0
        /// Whether what this work listed alone is over `capBytes`.
        var overCap = false
        /// Images whose newest record was in a group that died with this commit (every item of
        /// it listed again by a newer group, without them), removed: the root names them no more.
        var unnamedFiles = 0
    }

    /// Ends a run: the groups `journal` wrote join the table (shadowing the earlier copies of
    /// their items), the index deltas and the table are saved, then a copy of the new root and
    /// the root itself; then archive files no kept root names are removed. `run` is the run
    /// record the root keeps (nil: the last one stays); `files` and `bytes` the referenced
    /// files' count and bytes.
    ///
    /// With `capBytes` (`--cache-max`), groups this work did not list (neither written nor listed
    /// again by it, nor listed between `protectedSince`, ms: this work's start, and
    /// `generatedAt`) leave the archive, least recently listed first, until the files it names
    /// fit; their files no other group names are removed once the root no longer names them.
    ///
    /// With `forgetting` (`feedcrawl forget`: `planForget`, its copies in `journal`), the plan's
    /// groups leave the archive and its files are removed once the root no longer names them.
    func commit(
        journal: RunJournal?, run: RunRecord?, generatedAt: Date, capBytes: Int64? = nil, protectedSince: Int64 = 0,
        forgetting: ForgetPlan? = nil
    ) async throws -> Committed {
        // The journal's groups move into the table (no second copy of them; at 50,000 feed
        // pages each copy is 19 MB).
        let writtenNumbers: Set<UInt32>
        let writtenPages: [(source: String, page: Int)]
        do {
            var written = journal?.takeGroups() ?? []
            writtenNumbers = Set(written.lazy.map(\.number))
            writtenPages = Self.distinctPages(written)
            lock.withLock { groupTable.put(all: &written) }
        }
        let mine = writtenNumbers.union(lock.withLock { joined })
        let itemRuns = (journal?.itemKeys.sortedRuns() ?? []) + adoptedItems.sortedRuns()
        let fileRuns = (journal?.fileKeys.sortedRuns() ?? []) + adoptedFiles.sortedRuns()
        let newItems = (journal?.itemKeys.count ?? 0) + adoptedItems.count
        let newFiles = (journal?.fileKeys.count ?? 0) + adoptedFiles.count
        try await shadow(try await shadowing(itemRuns, newCount: newItems, mine: mine))
        try await supersedePlaceholders(writtenPages, except: writtenNumbers)
        let dead = lock.withLock { groupTable.removeDead() }
        var listed: [String: RepositoryRoot.SourceTotals] = [:]
        let listedHere = mine.union(lock.withLock { relisted })
        for entry in table.entries where listedHere.contains(entry.number) {
            for (status, n) in entry.counts { listed[entry.source, default: .init()].items[status, default: 0] += n }
            for (status, n) in entry.images { listed[entry.source, default: .init()].images[status, default: 0] += n }
        }
        var next = root
        next.generation += 1
        next.generatedAt = generatedAt
        // A commit without a record of its own (a repair) keeps the last run's.
        next.run = run ?? root.run
        // The run record counts this work's items and images (the groups it wrote or listed).
        var counts: [String: Int] = [:], images: [String: Int] = [:]
        for totals in listed.values {
            for (status, n) in totals.items where n != 0 { counts[status, default: 0] += n }
            for (status, n) in totals.images where n != 0 { images[status, default: 0] += n }
        }
        if run != nil, next.run?.merge == nil {
            next.run?.counts = counts
            next.run?.images = images
        }
        next.segments = mergedSegments(next.segments + adoptedSegments + (journal?.segments ?? []))
        next.nextGroup = max(root.nextGroup, journal?.nextGroup ?? 0)
        var evicted: [ForgottenFile] = []
        var committedEviction = (files: 0, bytes: Int64(0), overCap: false)
        var (files, bytes, stale) = newFiles > 0
            ? try await fileTotals(fileRuns, newCount: newFiles, files: root.totals.files, bytes: root.totals.bytes, mine: mine)
            : (root.totals.files, root.totals.bytes, [])
        if !stale.isEmpty {
            lock.withLock {
                for number in stale where groupTable.entry(number)?.stale != true { groupTable.update(number) { $0.stale = true } }
            }
        }
        if let capBytes, bytes > capBytes {
            let until = Int64((generatedAt.timeIntervalSince1970 * 1000).rounded(.up))
            let plan = try await evict(
                extra: fileRuns, total: bytes, capBytes: capBytes, protected: mine,
                listedBetween: protectedSince...max(protectedSince, until))
            lock.withLock { groupTable.remove(Set(plan.groups)) }
            evicted = plan.files
            committedEviction = (plan.files.count, plan.bytes, plan.overCap)
            bytes -= plan.bytes
            files -= plan.files.count
            // The run record says what `--cache-max` took (`feedcrawl manifest` shows it).
            next.run?.evicted = plan.files.count
            next.run?.evictedBytes = plan.bytes
        }
        if let forgetting {
            next.forgot = ForgetRecord(
                at: generatedAt, rule: forgetting.rule, items: forgetting.items, files: forgetting.files.count,
                bytes: forgetting.bytes)
            lock.withLock { groupTable.remove(forgetting.groups) }
            bytes -= forgetting.bytes
            files -= forgetting.files.count
        }
        next.totals.files = files
        next.totals.bytes = bytes
        next.itemIndex = try await saveIndex(.items, current: root.itemIndex, adding: itemRuns, count: newItems)
        next.fileIndex = try await saveIndex(.files, current: root.fileIndex, adding: fileRuns, count: newFiles)
        let live = Set(table.entries.map(\.segment))
        next.segments = next.segments.filter { live.contains($0.name) }
        if let merged = try await compact(next.segments) {
            next.segments = next.segments.filter { !merged.replaced.contains($0.name) } + [merged.segment]
        }
        let table = self.table
        next.groups = try await saveArchiveFile(extension: "groups") { try table.encode($0) }
        next.totals.sources = table.totals
        // What the old root named and the new one does not is retired now; a retired file is
        // removed once no kept copy of a root can name it (nor a shard's root).
        var retired = next.retired
        // So is a segment this work wrote or adopted none of whose groups lives on (listed again
        // meanwhile, or a killed run's empty journal file): unnamed, it would be adopted again by
        // every run, its stale groups shadowing newer listings.
        let born = Set((adoptedSegments + (journal?.segments ?? [])).map(\.name)).subtracting(root.archiveFiles)
        for name in root.archiveFiles.union(born).subtracting(next.archiveFiles) { retired[name] = next.generation }
        let shardFiles = try await shardNames()
        // Retired at generation r, a file was last named by r - 1; the kept copies are the last
        // `keptRoots` generations, so none names it once generation r - 1 + keptRoots is written.
        let doomed = retired.filter { next.generation + 1 - $0.value >= UInt64(Self.keptRoots) && !shardFiles.contains($0.key) }
        for name in doomed.keys { retired.removeValue(forKey: name) }
        next.retired = retired
        try await saveRoot(next)
        root = next
        lock.withLock {
            readers = [:]
            joined = []
        }
        adoptedItems.clear()
        adoptedFiles.clear()
        lock.withLock { adoptedFileList = nil }
        adoptedSegments = []
        var removed = 0
        for name in doomed.keys {
            guard let handle = FileHandle(.archive, name), (try? await backend.remove(handle)) != nil else { continue }
            removed += 1
        }
        try? await removeOldCopies()
        // Evicted (and forgotten) images: the new root names none of them.
        for file in evicted { if let handle = file.handle { try? await backend.remove(handle) } }
        for file in forgetting?.files ?? [] { if let handle = file.handle { try? await backend.remove(handle) } }
        // Images whose newest record died with its group: unnamed now. Only in OUT's own archive
        // with no shard (a shard's archive, or a shard's root, may still name them).
        var unnamed = 0
        if state.isEmpty, shardFiles.isEmpty {
            for entry in dead {
                guard let items = try? await rawItems(entry) else { continue }
                for file in Set(items.flatMap { $0.images.compactMap { $0.file.flatMap(FileHandle.image(file:)) } })
                where !((try? await names(file)) ?? true) {
                    if (try? await backend.remove(file)) != nil { unnamed += 1 }
                }
            }
        }
        var committed = Committed(root: next, listed: listed, removed: removed)
        committed.evictedFiles = committedEviction.files
        committed.evictedBytes = committedEviction.bytes
        committed.overCap = committedEviction.overCap
        committed.unnamedFiles = unnamed
        return committed
    }

    /// Marks the groups holding the newest record of each of `files` (images the store no longer
    /// holds whole: removed by `manifest --verify --repair`, or missing) as needing work, so that
    /// the next run lists their pages anew instead of settling them, and fetches those images
    /// again. Takes effect with the next `commit`. Returns how many groups were marked.
    @discardableResult
    func markForRetry(_ files: [FileHandle]) async throws -> Int {
        var groups = Set<UInt32>()
        for handle in files {
            guard let key = CacheKey(file: handle.file), let hit = try await lookup(.files, key.prefix),
                  table.entry(hit.group) != nil
            else { continue }
            groups.insert(hit.group)
        }
        lock.withLock { for number in groups { groupTable.update(number) { $0.retry = true } } }
        return groups.count
    }

    /// Saves the root's copy in `archive/roots/`, then the root.
    func saveRoot(_ root: RepositoryRoot) async throws {
        let bytes = try root.encoded()
        if let copy = FileHandle(.archive, "roots/" + state + root.copyName.dropFirst("roots/".count)) {
            try await backend.save(copy, bytes: bytes, options: SaveOptions())
        }
        try await backend.save(Self.rootHandle(state: state), bytes: bytes, options: SaveOptions())
    }

    private func mergedSegments(_ segments: [RepositoryRoot.Segment]) -> [RepositoryRoot.Segment] {
        var seen = Set<String>()
        return segments.filter { seen.insert($0.name).inserted }
    }

    /// Saves the index's delta for `adding` (sorted runs of `count` entries), or, when the
    /// deltas have grown past a quarter of the base or number 8 or more, one new base of
    /// everything (entries of groups no longer live dropped), streamed from the tables; returns
    /// the index's table names.
    private func saveIndex(_ kind: IndexTable.Kind, current: [String], adding: [EntryStream], count: Int64) async throws
        -> [String]
    {
        guard count > 0 else { return current }
        let tables = try await tables(kind)  // newest first
        let base = current.isEmpty ? 0 : (tables.last?.count ?? 0)
        let deltas = tables.dropLast().reduce(Int64(0)) { $0 + $1.count } + count
        let rewrite = current.isEmpty || current.count >= 8 || deltas * 4 > base
        let table = self.table
        let temporary = FileHandle(.archive, "tables/new-" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + "." + kind.fileExtension)!
        let writer = try IndexFile.Writer(backend: backend, handle: temporary, kind: kind)
        var merge = EntryMerge(adding + (rewrite ? tables.map { $0.stream() } : []))
        var last: UInt64?
        while let (entry, _) = try await merge.pop() {
            guard entry.key != last else { continue }
            last = entry.key
            if rewrite, table.entry(entry.group) == nil { continue }
            try writer.append(entry)
        }
        let (staged, sha) = try writer.finish()
        let name = "tables/" + sha.hexString + "." + kind.fileExtension
        guard let handle = FileHandle(.archive, name) else { return current }
        try await backend.save(handle, staged: staged, options: SaveOptions(sha256: sha))
        return rewrite ? [name] : current + [name]
    }

    /// Saves what `write` hands its `emit` as `tables/<its SHA-256>.<ext>` and returns that name.
    private func saveArchiveFile(extension ext: String, _ write: (_ emit: ([UInt8]) throws -> Void) throws -> Void) async throws -> String {
        // Staged as it is written (a folder: a `.part` file beside the tables), hashed on the way,
        // then saved under its name.
        guard let scratch = FileHandle(.archive, "tables/" + String(repeating: "0", count: 64) + "." + ext) else {
            throw BackendError(.refused, "save", location: "tables/", reason: "no file name for a .\(ext) table")
        }
        let staged = try backend.stage(scratch)
        var hash = SHA256()
        do {
            try write { piece in
                hash.update(piece)
                try piece.withUnsafeBytes { try staged.write($0) }
            }
        } catch {
            staged.discard()
            throw error
        }
        let digest = hash.finalize()
        let name = "tables/" + digest.hexString + "." + ext
        guard let handle = FileHandle(.archive, name) else {
            staged.discard()
            throw BackendError(.refused, "save", location: name, reason: "not a table name")
        }
        try await backend.save(handle, staged: staged, options: SaveOptions(sha256: digest))
        return name
    }

    /// The files under `archive/` that other archives of OUT name, which this one must not
    /// remove: for OUT's own, what the current roots of its shards name (a shard's next run
    /// reads them); for a shard's, what OUT's root and its kept copies name (a merge named the
    /// shard's journal files and segments in OUT's archive).
    private func shardNames() async throws -> Set<String> {
        var roots: [FileHandle] = []
        if state.isEmpty {
            try await backend.list(.state, prefix: "shards/") { page in
                roots += page.map(\.handle).filter { !$0.isPartial && $0.name.hasSuffix("/" + CacheLayout.manifestFileName) }
            }
        } else {
            roots.append(Self.rootHandle(state: ""))
            try await backend.list(.archive, prefix: "roots/") { page in
                roots += page.map(\.handle).filter { !$0.isPartial && !$0.name.dropFirst("roots/".count).contains("/") }
            }
        }
        var names = Set<String>()
        for handle in roots {
            guard let bytes = try? await backend.load(handle, range: nil, maxBytes: Self.maxRootBytes),
                  case .root(let root)? = try? RepositoryRoot.decode(bytes) else { continue }
            names.formUnion(root.archiveFiles)
        }
        return names
    }

    /// Removes the copies of this state's roots older than the last `keptRoots`.
    private func removeOldCopies() async throws {
        let folder = "roots/" + state
        var names: [String] = []
        try await backend.list(.archive, prefix: folder) { page in
            for info in page where !info.handle.isPartial && !info.handle.name.dropFirst(folder.count).contains("/") {
                names.append(info.handle.name)
            }
        }
        for name in names.sorted().dropLast(Self.keptRoots) {
            if let handle = FileHandle(.archive, name) { try await backend.remove(handle) }
        }
    }
}

extension Repository {
    /// For a merge: takes a shard's groups into this archive (OUT's own). A group this archive
    /// does not have joins the table (under the next free number when its own is another group's
    /// here), its items the indexes (as deltas: the shard's segments are named, not rewritten),
    /// shadowing the earlier copies of its items; one it has (the same lines: listed again by the
    /// shard, or absorbed by an earlier merge) takes the shard's later `lastListed`.
    /// Returns how many groups joined.
    @discardableResult
    func absorb(_ shard: Repository) async throws -> Int {
        var count = 0
        // A group this archive has is known by where its lines are (its number may differ: see
        // below).
        var places: [String: UInt32] = [:]
        for mine in table.entries { places[mine.segment + "#" + String(mine.offset)] = mine.number }
        for entry in shard.table.entries {
            let place = entry.segment + "#" + String(entry.offset)
            if let number = places[place], let mine = table.entry(number) {
                if entry.lastListed > mine.lastListed {
                    lock.withLock {
                        groupTable.update(number) { $0.relist(at: entry.lastListed) }
                        relisted.insert(number)
                    }
                }
                continue
            }
            var copy = entry
            if table.entry(entry.number) != nil {
                // The number is another group's here (the shard numbered its groups before this
                // archive had it: converted from an earlier release's manifest after the shard
                // ran): the group joins under the next free number.
                copy.number = max(root.nextGroup, shard.root.nextGroup)
                root.nextGroup = copy.number &+ 1
            }
            let items = try await shard.rawItems(entry)
            let (itemKeys, fileKeys) = GroupEntry.keys(items, group: copy.number)
            adoptedItems.append(itemKeys)
            adoptedFiles.append(fileKeys)
            lock.withLock { adoptedFileList = nil }
            places[place] = copy.number
            copy.shadowed = nil
            copy.counts = [:]
            copy.images = [:]
            for item in items { GroupEntry.add(item, to: &copy.counts, images: &copy.images, sign: 1) }
            if entry.relisted { copy.relist(at: entry.lastListed) }
            lock.withLock {
                groupTable.put(copy)
                relisted.insert(copy.number)
                joined.insert(copy.number)
            }
            if !adoptedSegments.contains(where: { $0.name == entry.segment }),
               let segment = shard.root.segments.first(where: { $0.name == entry.segment }) ?? shard.adoptedSegments.first(where: { $0.name == entry.segment }) {
                adoptedSegments.append(segment)
            }
            root.nextGroup = max(root.nextGroup, copy.number &+ 1)
            count += 1
        }
        root.nextGroup = max(root.nextGroup, shard.root.nextGroup)
        return count
    }
}

extension Repository {
    /// What `--cache-max` takes out: groups, and the files only they name (compact records, as
    /// a forget's: 333,000 handles held 40 MiB).
    struct EvictionPlan {
        var groups: [UInt32] = []
        var files: [ForgottenFile] = []
        var bytes: Int64 = 0
        /// Whether the groups that may not go (listed by this work) alone are over the cap.
        var overCap = false
    }

    /// Plans `--cache-max`: the groups this work did not list (not in `protected`, and not listed
    /// within `listedBetween`, this work's time in ms), least recently listed first (then oldest
    /// fetch), leave until the files the archive names (`total` bytes: the file index with this
    /// work's entries `extra`) fit under `capBytes`. A group an earlier run listed "later" than
    /// this work (the clock was set back since) is not this work's: it may go. A file goes with
    /// its group only when that group holds its newest record (an older listing of it going
    /// first changes nothing). Reads only the groups that go.
    func evict(
        extra: [EntryStream], total: Int64, capBytes: Int64, protected: Set<UInt32>, listedBetween: ClosedRange<Int64>
    ) async throws -> EvictionPlan {
        let table = self.table
        var plan = EvictionPlan()
        let candidates = table.entries.filter { !protected.contains($0.number) && !listedBetween.contains($0.lastListed) }
            .sorted { ($0.lastListed, $0.oldestFetch ?? 0, $0.number) < ($1.lastListed, $1.oldestFetch ?? 0, $1.number) }
        guard !candidates.isEmpty else {
            plan.overCap = true
            return plan
        }
        // The bytes of the files each candidate holds the newest record of, then the groups that
        // go; then, for those only, their file entries and names, a group at a time.
        let wanted = Set(candidates.map(\.number))
        var groupBytes: [UInt32: Int64] = [:]
        try await forEachLive(.files, extra: extra) { entry in
            if wanted.contains(entry.group) { groupBytes[entry.group, default: 0] += Int64(entry.bytes) }
        }
        var remaining = total
        for candidate in candidates where remaining > capBytes {
            plan.groups.append(candidate.number)
            let bytes = groupBytes[candidate.number] ?? 0
            remaining -= bytes
            plan.bytes += bytes
        }
        plan.overCap = remaining > capBytes
        let chosen = Set(plan.groups)
        var held: [UInt32: [IndexEntry]] = [:]
        try await forEachLive(.files, extra: extra) { entry in
            if chosen.contains(entry.group) { held[entry.group, default: []].append(entry) }
        }
        for candidate in candidates where chosen.contains(candidate.number) {
            guard let entries = held.removeValue(forKey: candidate.number) else { continue }
            let items = try await rawItems(candidate)
            for entry in entries {
                guard entry.item < items.count, entry.image < items[entry.item].images.count,
                      let file = items[entry.item].images[entry.image].file,
                      let record = ForgottenFile(file: file, group: candidate.number, item: entry.item, image: entry.image,
                                                 bytes: Int64(entry.bytes)) else { continue }
                plan.files.append(record)
            }
        }
        return plan
    }
}

extension Repository {
    /// Journal files under this size are small (256 KiB). A run of few pages writes one of a few
    /// kilobytes; a busy run flushes about a megabyte a second, and with a bound of 1 MiB a cold
    /// crawl of 10 million items left 647 files just under it, so each of its next ten warm runs
    /// rewrote 64 MiB.
    static let smallSegment: Int64 = 256 << 10
    /// Small segments allowed before compaction merges them (32).
    static let smallSegmentsAllowed = 32
    /// The most a compacted segment holds (64 MiB).
    static let maxSegmentBytes: Int64 = 64 << 20

    /// Compaction, occasional and proportional to what it merges: once more than
    /// `smallSegmentsAllowed` segments are small (a run of few pages writes a journal file of a
    /// few kilobytes), the live groups of the smallest are copied as they are into one segment
    /// `segments/<sha256>.ndjson` (at most `maxSegmentBytes`), and the table points at them there.
    /// The small files are then named by no root: retired, and removed once no kept root names
    /// them. Returns the new segment and the names it replaces, or nil when nothing was due.
    func compact(_ segments: [RepositoryRoot.Segment]) async throws -> (segment: RepositoryRoot.Segment, replaced: Set<String>)? {
        let small = segments.filter { $0.bytes < Self.smallSegment }.sorted { $0.bytes < $1.bytes }
        guard small.count > Self.smallSegmentsAllowed else { return nil }
        var chosen: Set<String> = []
        var total: Int64 = 0
        for segment in small where total + segment.bytes <= Self.maxSegmentBytes {
            chosen.insert(segment.name)
            total += segment.bytes
        }
        let moving = table.entries.filter { chosen.contains($0.segment) }.sorted { $0.number < $1.number }
        guard let temporary = FileHandle(.archive, "segments/new-" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".ndjson")
        else { return nil }
        let staged = try backend.stage(temporary)
        var hasher = SHA256()
        var offset: Int64 = 0
        var moved: [(number: UInt32, offset: Int64, length: Int64)] = []
        for entry in moving {
            guard let handle = FileHandle(.archive, entry.segment) else { continue }
            let bytes = try await backend.load(handle, range: entry.offset..<(entry.offset + entry.length), maxBytes: entry.length)
            try bytes.withUnsafeBytes { try staged.write($0) }
            hasher.update(bytes)
            moved.append((entry.number, offset, entry.length))
            offset += entry.length
        }
        let sha = hasher.finalize()
        let name = "segments/" + sha.hexString + ".ndjson"
        guard let handle = FileHandle(.archive, name) else {
            staged.discard()
            return nil
        }
        try await backend.save(handle, staged: staged, options: SaveOptions(sha256: sha))
        lock.withLock {
            for (number, at, _) in moved {
                groupTable.update(number) { entry in
                    entry.segment = name
                    entry.offset = at
                }
            }
            groupCache.removeAll()
            groupCacheOrder.removeAll()
        }
        return (RepositoryRoot.Segment(name: name, bytes: offset), chosen)
    }
}
