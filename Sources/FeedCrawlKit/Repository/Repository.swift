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

    private let lock = Lock()
    // Guarded by `lock`.
    private var itemIndex: LoadedIndex?
    private var fileIndex: LoadedIndex?
    /// Index entries of adopted groups, added to the deltas the next commit writes.
    private var adoptedKeys: (items: [IndexEntry], files: [IndexEntry]) = ([], [])
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

    /// Opens the archive whose root is `state`'s (`""`: OUT's).
    static func open(_ backend: any Backend, state: String = "") async throws -> Repository {
        let handle = rootHandle(state: state)
        var notes: [String] = []
        var root: RepositoryRoot?
        do {
            let bytes = try await backend.load(handle, range: nil, maxBytes: maxRootBytes)
            switch try RepositoryRoot.decode(bytes) {
            case .root(let found): root = found
            case .manifest(let version):
                throw OlderManifest(version: version)
            }
        } catch let error as BackendError where error.kind == .notFound {
            root = nil
        } catch let damage as DamagedRoot {
            notes.append("\(backend.location(handle)) is damaged (\(damage)); using the newest whole copy in archive/roots/")
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
        return repository
    }

    /// A version-1 or version-2 manifest where the root should be: the caller converts it.
    struct OlderManifest: Error {
        var version: Int
    }

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

    private static func loadTable(_ backend: any Backend, root: RepositoryRoot) async throws -> GroupTable {
        guard let name = root.groups, let handle = FileHandle(.archive, name) else { return GroupTable() }
        let bytes = try await backend.load(handle, range: nil, maxBytes: maxTableBytes)
        return try GroupTable.decode(bytes)
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
            try await shadowEarlier(itemKeys: itemKeys, items: items, except: [header.number])
            lock.withLock { groupTable.put(entry) }
            lock.withLock {
                adoptedKeys.items += itemKeys
                adoptedKeys.files += fileKeys
                itemIndex?.add(itemKeys)
                fileIndex?.add(fileKeys)
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
    /// run that listed it, `downloaded`/`revalidated` read as `fresh` once it was listed again.
    /// Shadowed items (a newer group lists them) are left out unless `shadowed`.
    func items(of entry: GroupEntry, shadowed: Bool = false) async throws -> [ManifestItem] {
        let raw = try await rawItems(entry)
        let seen = Date(timeIntervalSince1970: Double(entry.lastListed / 1000))
        var out: [ManifestItem] = []
        out.reserveCapacity(raw.count)
        for (position, var item) in raw.enumerated() {
            if !shadowed, entry.isShadowed(position) { continue }
            item.page = entry.page
            item.lastSeen = seen
            if entry.relisted {
                for index in item.images.indices where item.images[index].status == .downloaded
                    || item.images[index].status == .revalidated {
                    item.images[index].status = .fresh
                }
            }
            out.append(item)
        }
        return out
    }

    /// The item at `position` of group `entry`, as it reads now (shadowed or not).
    func item(of entry: GroupEntry, at position: Int) async throws -> ManifestItem? {
        let all = try await items(of: entry, shadowed: true)
        return position < all.count ? all[position] : nil
    }

    /// The group's item lines as written (a few groups are cached).
    func rawItems(_ entry: GroupEntry) async throws -> [ManifestItem] {
        if let cached = lock.withLock({ groupCache[entry.number] }) { return cached }
        guard let handle = FileHandle(.archive, entry.segment) else { return [] }
        let bytes = try await backend.load(handle, range: entry.offset..<(entry.offset + entry.length), maxBytes: entry.length)
        let (_, items) = try GroupCodec.decode(bytes)
        lock.withLock {
            groupCache[entry.number] = items
            groupCacheOrder.append(entry.number)
            if groupCacheOrder.count > 16 { groupCache.removeValue(forKey: groupCacheOrder.removeFirst()) }
        }
        return items
    }

    /// The newest stored record of the image whose URL key is `key` (its file's facts), or nil.
    func archivedImage(_ key: CacheKey) async throws -> ImageRecord? {
        let index = try await loadedIndex(.files)
        guard let hit = index.lookup(key.prefix), let entry = table.entry(hit.group) else {
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
        let index = try await loadedIndex(.items)
        guard let hit = index.lookup(itemIndexKey(source: source, id: id)), let entry = table.entry(hit.group) else {
            return nil
        }
        let raw = try await rawItems(entry)
        guard hit.item < raw.count, raw[hit.item].source == source, raw[hit.item].id == id else { return nil }
        return (entry, hit.item)
    }

    /// The index of `kind`, loaded (base and deltas) on first use.
    func loadedIndex(_ kind: IndexTable.Kind) async throws -> LoadedIndex {
        if let loaded = lock.withLock({ kind == .items ? itemIndex : fileIndex }) { return loaded }
        var tables: [[IndexEntry]] = []
        for name in kind == .items ? root.itemIndex : root.fileIndex {
            guard let handle = FileHandle(.archive, name) else { continue }
            let bytes = try await backend.load(handle, range: nil, maxBytes: 1 << 32)
            tables.append(try IndexTable.decode(bytes, kind: kind))
        }
        tables.append(lock.withLock { kind == .items ? adoptedKeys.items : adoptedKeys.files })
        let loaded = LoadedIndex(tables: tables)
        lock.withLock {
            if kind == .items { itemIndex = itemIndex ?? loaded } else { fileIndex = fileIndex ?? loaded }
        }
        return lock.withLock { kind == .items ? itemIndex! : fileIndex! }
    }

    // MARK: The crawl

    /// When `source`'s `page` is settled — the table's newest group of it has this `digest`
    /// and `recipe`, no shadowed item, nothing to retry, and every stored image younger than
    /// `ttl` seconds at the start of the run (`run`, ms) — lists its group again (its items'
    /// `lastSeen` becomes `run`; `downloaded` reads `fresh`) and returns it. Thread-safe.
    func settleIfUnchanged(source: String, page: Int, digest: String, recipe: String, run: Int64, ttl: Double)
        -> GroupEntry?
    {
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
            groupTable.put(listed)
            relisted.insert(entry.number)
            return listed
        }
    }

    // MARK: Committing

    /// Takes out of the table's counts the earlier effective copies of `items` (now listed by
    /// a group in `except`): they are shadowed.
    func shadowEarlier(itemKeys: [IndexEntry], items: [ManifestItem], except: Set<UInt32>) async throws {
        try await shadowEarlier(itemKeys: itemKeys, except: except) { items }
    }

    /// `shadowEarlier(itemKeys:items:except:)` reading the items (`items`) only when one of
    /// them has an earlier copy: a run's first listing of its pages decodes none of its groups
    /// again.
    func shadowEarlier(
        itemKeys: [IndexEntry], except: Set<UInt32>, items load: () async throws -> [ManifestItem]
    ) async throws {
        guard !table.entries.isEmpty else { return }
        let index = try await loadedIndex(.items)
        var loaded: [ManifestItem]?
        for (position, key) in itemKeys.enumerated() {
            guard let hit = index.lookup(key.key), !except.contains(hit.group),
                  let earlier = table.entry(hit.group) else { continue }
            let items: [ManifestItem]
            if let loaded {
                items = loaded
            } else {
                items = try await load()
                loaded = items
            }
            guard let old = try await item(of: earlier, at: hit.item), old.source == items[position].source,
                  old.id == items[position].id else { continue }
            lock.withLock { groupTable.update(hit.group) { _ = $0.shadow(hit.item, item: old) } }
        }
    }

    /// A feed page: its source and number.
    private struct PageKey: Hashable {
        var source: String
        var page: Int
    }

    /// Shadows the placeholders (`FeedItem.isSyntheticID`, no image: a feed element without a
    /// usable id) that the earlier groups of `source`'s `page` (not in `except`, this work's)
    /// still hold: a placeholder is the listing's that saw it, and a later listing of its page
    /// lists the element anew (under its id, or as a placeholder again), so an element the feed
    /// fixed meanwhile leaves no rejected placeholder behind. Reads only earlier groups of the
    /// page that still have live items.
    private func shadowPlaceholders(source: String, page: Int, except: Set<UInt32>) async throws {
        let earlier = lock.withLock { groupTable.groups(source: source, page: page) }
            .filter { !except.contains($0.number) && $0.liveItems > 0 }
        for entry in earlier {
            let items = try await rawItems(entry)
            for (position, item) in items.enumerated()
            where item.images.isEmpty && FeedItem.isSyntheticID(item.id) && !entry.isShadowed(position) {
                lock.withLock { groupTable.update(entry.number) { _ = $0.shadow(position, item: item) } }
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
    /// record the root keeps; `files` and `bytes` the referenced files' count and bytes.
    ///
    /// With `capBytes` (`--cache-max`), groups not listed since `protectedSince` (ms: this work's
    /// start) leave the archive, least recently listed first, until the files it names fit; their
    /// files no other group names are removed once the root no longer names them.
    func commit(
        journal: RunJournal?, run: RunRecord?, generatedAt: Date, capBytes: Int64? = nil, protectedSince: Int64 = 0
    ) async throws -> Committed {
        let written = journal?.groups ?? []
        let numbers = Set(written.map(\.entry.number))
        var newItemKeys = lock.withLock { adoptedKeys.items }
        var newFileKeys = lock.withLock { adoptedKeys.files }
        for group in written {
            try await shadowEarlier(itemKeys: group.itemKeys, except: numbers) { try await self.rawItems(group.entry) }
            lock.withLock { groupTable.put(group.entry) }
            newItemKeys += group.itemKeys
            newFileKeys += group.fileKeys
        }
        for key in Set(written.map { PageKey(source: $0.entry.source, page: $0.entry.page) }) {
            try await shadowPlaceholders(source: key.source, page: key.page, except: numbers)
        }
        let dead = lock.withLock { groupTable.removeDead() }
        var listed: [String: RepositoryRoot.SourceTotals] = [:]
        let mine = numbers.union(lock.withLock { relisted })
        for entry in table.entries where mine.contains(entry.number) {
            for (status, n) in entry.counts { listed[entry.source, default: .init()].items[status, default: 0] += n }
            for (status, n) in entry.images { listed[entry.source, default: .init()].images[status, default: 0] += n }
        }
        var next = root
        next.generation += 1
        next.generatedAt = generatedAt
        next.run = run
        // The run record counts this work's items and images (the groups it wrote or listed).
        var counts: [String: Int] = [:], images: [String: Int] = [:]
        for totals in listed.values {
            for (status, n) in totals.items where n != 0 { counts[status, default: 0] += n }
            for (status, n) in totals.images where n != 0 { images[status, default: 0] += n }
        }
        if next.run != nil, next.run?.merge == nil {
            next.run?.counts = counts
            next.run?.images = images
        }
        next.segments = mergedSegments(next.segments + adoptedSegments + (journal?.segments ?? []))
        next.nextGroup = max(root.nextGroup, journal?.nextGroup ?? 0)
        var evicted: [FileHandle] = []
        var committedEviction = (files: 0, bytes: Int64(0), overCap: false)
        if !newFileKeys.isEmpty || capBytes != nil || lock.withLock({ fileIndex != nil }) {
            // The files the archive names and their bytes, each once: the file index's newest
            // entries of live groups.
            var files = try await loadedIndex(.files)
            files.add(newFileKeys)
            var table = self.table
            var total: Int64 = 0
            var count = 0
            for entry in files.entries where table.entry(entry.group) != nil {
                count += 1
                total += Int64(entry.bytes)
            }
            if let capBytes, total > capBytes {
                let plan = try await evict(files, table: &table, total: total, capBytes: capBytes, protectedSince: protectedSince)
                lock.withLock { groupTable.remove(Set(plan.groups)) }
                evicted = plan.files
                committedEviction = (plan.files.count, plan.bytes, plan.overCap)
                total -= plan.bytes
                count -= plan.files.count
            }
            next.totals.files = count
            next.totals.bytes = total
        }
        next.itemIndex = try await saveIndex(.items, current: root.itemIndex, adding: newItemKeys)
        next.fileIndex = try await saveIndex(.files, current: root.fileIndex, adding: newFileKeys)
        let table = self.table
        next.groups = try await saveArchiveFile(try table.encoded(), extension: "groups")
        next.totals.sources = table.totals
        let live = Set(table.entries.map(\.segment))
        next.segments = next.segments.filter { live.contains($0.name) }
        // What the old root named and the new one does not is retired now; a retired file is
        // removed once no kept copy of a root can name it (nor a shard's root).
        var retired = next.retired
        // So is a segment this work wrote or adopted none of whose groups lives on (listed again
        // meanwhile, or a killed run's empty journal file): unnamed, it would be adopted again by
        // every run, its stale groups shadowing newer listings.
        let born = Set((adoptedSegments + (journal?.segments ?? [])).map(\.name)).subtracting(root.archiveFiles)
        for name in root.archiveFiles.union(born).subtracting(next.archiveFiles) { retired[name] = next.generation }
        let shardFiles = try await shardNames()
        let doomed = retired.filter { next.generation - $0.value >= UInt64(Self.keptRoots) && !shardFiles.contains($0.key) }
        for name in doomed.keys { retired.removeValue(forKey: name) }
        next.retired = retired
        try await saveRoot(next)
        root = next
        lock.withLock {
            adoptedKeys = ([], [])
            if !newItemKeys.isEmpty { itemIndex?.add(newItemKeys) }
            if !newFileKeys.isEmpty { fileIndex?.add(newFileKeys) }
        }
        adoptedSegments = []
        var removed = 0
        for name in doomed.keys {
            guard let handle = FileHandle(.archive, name), (try? await backend.remove(handle)) != nil else { continue }
            removed += 1
        }
        try? await removeOldCopies()
        // Evicted images: the new root names none of them.
        for handle in evicted { try? await backend.remove(handle) }
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

    /// Saves the index's delta for `adding` (or, when the deltas have grown past a quarter of
    /// the base or number more than 8, one new base of everything) and returns the index's
    /// table names.
    private func saveIndex(_ kind: IndexTable.Kind, current: [String], adding: [IndexEntry]) async throws -> [String] {
        guard !adding.isEmpty else { return current }
        var sizes: [Int] = []
        for name in current {
            if let handle = FileHandle(.archive, name), let info = try await backend.stat(handle) {
                sizes.append(Int(info.size ?? 0) / IndexTable.entryBytes)
            } else {
                sizes.append(0)
            }
        }
        let base = sizes.first ?? 0
        let deltas = sizes.dropFirst().reduce(0, +) + adding.count
        if current.isEmpty || current.count >= 8 || deltas * 4 > base {
            let index = try await loadedIndex(kind)
            var all = index.entries
            all += adding
            let table = self.table
            let merged = LoadedIndex.merged(all.filter { table.entry($0.group) != nil })
            return [try await saveArchiveFile(IndexTable.encode(merged, kind: kind), extension: kind.fileExtension)]
        }
        return current + [try await saveArchiveFile(IndexTable.encode(adding, kind: kind), extension: kind.fileExtension)]
    }

    /// Saves `bytes` as `archive/tables/<sha256>.<extension>` and returns its name.
    private func saveArchiveFile(_ bytes: [UInt8], extension ext: String) async throws -> String {
        let name = "tables/" + SHA256.hex(bytes) + "." + ext
        if let handle = FileHandle(.archive, name) {
            try await backend.save(handle, bytes: bytes, options: SaveOptions(sha256: SHA256.hash(bytes)))
        }
        return name
    }

    /// The files under `archive/` that the current roots of the shards of OUT name (a merge or a
    /// whole run must not remove what a shard's next run reads).
    private func shardNames() async throws -> Set<String> {
        guard state.isEmpty else { return [] }
        var roots: [FileHandle] = []
        try await backend.list(.state, prefix: "shards/") { page in
            roots += page.map(\.handle).filter { !$0.isPartial && $0.name.hasSuffix("/" + CacheLayout.manifestFileName) }
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
    /// Marks the groups that hold the newest records of `files` (cache paths: files `--verify`
    /// found missing, or `--repair` removed) as needing work (`retry`), so that the next run
    /// reads their pages again instead of settling them (a settled page's files are not looked
    /// at), finds the files gone and fetches them. Saves the group table, then a copy of the new
    /// root and the root (the same run record); the old table is retired. Returns how many
    /// groups were marked (none: nothing is saved). Call it under the lock.
    func markForWork(files: [String]) async throws -> Int {
        let index = try await loadedIndex(.files)
        var numbers = Set<UInt32>()
        for file in files {
            guard let key = CacheKey(file: file), let hit = index.lookup(key.prefix) else { continue }
            numbers.insert(hit.group)
        }
        let marked = lock.withLock { () -> Int in
            var marked = 0
            for number in numbers where groupTable.entry(number)?.retry == false {
                groupTable.update(number) { $0.retry = true }
                marked += 1
            }
            return marked
        }
        guard marked > 0 else { return 0 }
        var next = root
        next.generation += 1
        next.generatedAt = Date()
        next.groups = try await saveArchiveFile(try table.encoded(), extension: "groups")
        if let old = root.groups, old != next.groups { next.retired[old] = next.generation }
        try await saveRoot(next)
        root = next
        return marked
    }
}

extension Repository {
    /// For a merge: takes a shard's groups into this archive (OUT's own). A group this archive
    /// does not have joins the table, its items the indexes (as deltas: the shard's segments are
    /// named, not rewritten), shadowing the earlier copies of its items; one it has (listed again
    /// by the shard, or absorbed by an earlier merge) takes the shard's later `lastListed`.
    /// Returns how many groups joined.
    @discardableResult
    func absorb(_ shard: Repository) async throws -> Int {
        var joined = 0
        for entry in shard.table.entries {
            if let mine = table.entry(entry.number) {
                if entry.lastListed > mine.lastListed {
                    lock.withLock {
                        groupTable.update(entry.number) { $0.relist(at: entry.lastListed) }
                        relisted.insert(entry.number)
                    }
                }
                continue
            }
            let items = try await shard.rawItems(entry)
            let (itemKeys, fileKeys) = GroupEntry.keys(items, group: entry.number)
            try await shadowEarlier(itemKeys: itemKeys, items: items, except: [entry.number])
            var copy = entry
            copy.shadowed = nil
            copy.counts = [:]
            copy.images = [:]
            for item in items { GroupEntry.add(item, to: &copy.counts, images: &copy.images, sign: 1) }
            if entry.relisted { copy.relist(at: entry.lastListed) }
            lock.withLock {
                groupTable.put(copy)
                relisted.insert(copy.number)
                adoptedKeys.items += itemKeys
                adoptedKeys.files += fileKeys
                itemIndex?.add(itemKeys)
                fileIndex?.add(fileKeys)
            }
            if !adoptedSegments.contains(where: { $0.name == entry.segment }),
               let segment = shard.root.segments.first(where: { $0.name == entry.segment }) ?? shard.adoptedSegments.first(where: { $0.name == entry.segment }) {
                adoptedSegments.append(segment)
            }
            root.nextGroup = max(root.nextGroup, entry.number &+ 1)
            joined += 1
        }
        root.nextGroup = max(root.nextGroup, shard.root.nextGroup)
        return joined
    }
}

extension Repository {
    /// What `--cache-max` takes out: groups, and the files only they name.
    struct EvictionPlan {
        var groups: [UInt32] = []
        var files: [FileHandle] = []
        var bytes: Int64 = 0
        /// Whether the groups that may not go (listed by this work) alone are over the cap.
        var overCap = false
    }

    /// Plans `--cache-max`: the groups not listed since `protectedSince`, least recently listed
    /// first (then oldest fetch), leave until the files the archive names (`total` bytes, by the
    /// file index `files`) fit under `capBytes`. A file goes with its group only when that group
    /// holds its newest record (an older listing of it going first changes nothing). Reads only
    /// the groups that go.
    func evict(
        _ files: LoadedIndex, table: inout GroupTable, total: Int64, capBytes: Int64, protectedSince: Int64
    ) async throws -> EvictionPlan {
        var plan = EvictionPlan()
        let candidates = table.entries.filter { $0.lastListed < protectedSince }
            .sorted { ($0.lastListed, $0.oldestFetch ?? 0, $0.number) < ($1.lastListed, $1.oldestFetch ?? 0, $1.number) }
        guard !candidates.isEmpty else {
            plan.overCap = true
            return plan
        }
        // The file entries each candidate holds the newest record of.
        let wanted = Set(candidates.map(\.number))
        var held: [UInt32: [IndexEntry]] = [:]
        for entry in files.entries where wanted.contains(entry.group) { held[entry.group, default: []].append(entry) }
        var remaining = total
        for candidate in candidates where remaining > capBytes {
            plan.groups.append(candidate.number)
            let items = try await rawItems(candidate)
            for entry in held[candidate.number] ?? [] {
                remaining -= Int64(entry.bytes)
                plan.bytes += Int64(entry.bytes)
                guard entry.item < items.count, entry.image < items[entry.item].images.count,
                      let file = items[entry.item].images[entry.image].file.flatMap(FileHandle.image(file:)) else { continue }
                plan.files.append(file)
            }
        }
        plan.overCap = remaining > capBytes
        return plan
    }
}
