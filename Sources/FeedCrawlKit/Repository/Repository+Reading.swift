import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

extension Repository {
    /// Calls `body` with every effective item in the manifest's order (source, then id; each
    /// `(source, id)` once, its newest listing), `page` and `lastSeen` filled in. The groups are
    /// read one after the other and the items sorted in bounded memory (`ItemSorter`, their lines
    /// in a scratch file under `$TMPDIR`), so an archive of any size is read in flat memory.
    func forEachItem(_ body: (ManifestItem) throws -> Void) async throws {
        let scratch = ScratchFolder.temporaryDirectory
        guard let lines = Spill(directory: scratch) else {
            throw BackendError(.refused, "read", location: scratch, reason: "cannot make a scratch file")
        }
        let sorter = ItemSorter(order: .key, spill: Spill(directory: scratch))
        for entry in table.entries {
            for item in try await items(of: entry) {
                let line = ItemJSON.line(item)
                guard let offset = lines.append(line) else {
                    throw BackendError(.full, "write", location: scratch, reason: "cannot write the scratch file")
                }
                sorter.add(source: item.source, id: item.id, page: item.page, location: ItemLocation(offset: offset, length: line.count))
            }
        }
        var merged = sorter.sorted()
        var held: ManifestItem?
        while let entry = merged.next() {
            guard let bytes = lines.read(at: entry.location.offset, count: entry.location.length) else { continue }
            let item = try ItemJSON.decode(bytes)
            if let current = held {
                if current.key == item.key {
                    // Listed twice (two groups count it as theirs): the newest listing wins.
                    if (item.lastSeen ?? .distantPast) >= (current.lastSeen ?? .distantPast) { held = item }
                    continue
                }
                try body(current)
            }
            held = item
        }
        if let held { try body(held) }
    }

    /// The most common error texts of the archive's items and images (the groups' own most
    /// common ones, summed), at most `limit`.
    func commonErrors(limit: Int) -> [(error: String, count: Int)] {
        var errors: [String: Int] = [:]
        for entry in table.entries {
            for (text, count) in entry.errors ?? [:] { errors[text, default: 0] += count }
        }
        return errors.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(max(0, limit)).map { ($0.key, $0.value) }
    }

    /// Every file the archive names, with where its newest record is, in group order (reading
    /// the groups one after the other): `body` gets the file, its record, and the items that
    /// name it (`source/id`). The file index says which record is the newest.
    func forEachFile(_ body: (FileHandle?, ImageRecord, String) async throws -> Void) async throws {
        // Where each file's newest record is: 8 bytes a file, sorted by group to read each once.
        var places: [UInt64] = []
        try await forEachLive(.files, extra: adoptedFiles.sortedRuns()) { entry in
            places.append(UInt64(entry.group) << 32 | UInt64(entry.slot))
        }
        places.sort()
        let table = self.table
        for place in places {
            let hit = IndexEntry(key: 0, group: UInt32(place >> 32), slot: UInt32(truncatingIfNeeded: place), bytes: 0, fetched: 0)
            guard let entry = table.entry(hit.group) else { continue }
            let items = try await items(of: entry, shadowed: true)
            guard hit.item < items.count, hit.image < items[hit.item].images.count else { continue }
            let item = items[hit.item]
            let image = item.images[hit.image]
            try await body(image.file.flatMap(FileHandle.image(file:)), image, item.source + "/" + item.id)
        }
    }

    /// Whether the file index names `handle` (an image) as some live group's item's file: its
    /// key and its extension (a copy under another extension is an earlier one, replaced).
    /// Files the adopted groups name (an unfinished or running run's journal, not in the tables
    /// until a commit) count too; so, for OUT's own archive, do the files its shards' archives
    /// name (stored by a shard since the last merge: `--verify` and the sweep must not take them
    /// for orphans).
    func names(_ handle: FileHandle) async throws -> Bool {
        guard let key = CacheKey(file: handle.file) else { return false }
        if let hit = try await adoptedFile(key.prefix), table.entry(hit.group) != nil {
            return hit.fileExtension.map { handle.name.hasSuffix("." + $0) } ?? true
        }
        if let hit = try await lookup(.files, key.prefix), table.entry(hit.group) != nil {
            return hit.fileExtension.map { handle.name.hasSuffix("." + $0) } ?? true
        }
        if let base, try await base.names(handle) { return true }
        for shard in try await shardArchives() where try await shard.names(handle) { return true }
        return false
    }

    /// For OUT's own archive (state `""`): the archives of its shards (every
    /// `shards/N/K/manifest.json`, with what a killed shard's journal holds), opened once when
    /// first asked for. None for a shard's.
    func shardArchives() async throws -> [Repository] {
        guard state.isEmpty else { return [] }
        if let opened = lock.withLock({ shardArchivesOpened }) { return opened }
        var roots: [String] = []
        try await backend.list(.state, prefix: "shards/") { page in
            for info in page where !info.handle.isPartial && info.handle.name.hasSuffix("/" + CacheLayout.manifestFileName) {
                roots.append(String(info.handle.name.dropLast(CacheLayout.manifestFileName.count)))
            }
        }
        var opened: [Repository] = []
        for state in roots.sorted() { opened.append(try await Repository.open(backend, state: state)) }
        lock.withLock { shardArchivesOpened = opened }
        return opened
    }

    /// The newest file entry of `key` among the adopted groups' (kept sorted in memory once asked
    /// for: 24 bytes a file of the journal adopted).
    private func adoptedFile(_ key: UInt64) async throws -> IndexEntry? {
        guard adoptedFiles.count > 0 else { return nil }
        let sorted: [IndexEntry]
        if let known = lock.withLock({ adoptedFileList }) {
            sorted = known
        } else {
            var merge = EntryMerge(adoptedFiles.sortedRuns())
            var list: [IndexEntry] = []
            while let (entry, _) = try await merge.pop() {
                if list.last?.key != entry.key { list.append(entry) }
            }
            lock.withLock { adoptedFileList = list }
            sorted = list
        }
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low].key == key ? sorted[low] : nil
    }
}
