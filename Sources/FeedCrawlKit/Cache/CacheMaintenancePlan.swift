import FoundationEssentials

/// What the end of a run does to the manifest and the cache. Pure: no I/O, no clock.
///
/// The manifest is the catalogue of the cache, so after a run:
/// - this run's items stay as they are; their files are "used by this run" and never evicted;
/// - an item carried over from an earlier run that shares its cache entry (file name up to the
///   extension, i.e. its URL) with one of this run's items takes that item's file facts (name,
///   size, hash, validators), since this run may have replaced the file;
/// - a carried-over item whose file is gone from disk leaves the manifest;
/// - while the referenced files add up to more than `capBytes`, the least recently used file not
///   used by this run is evicted (oldest `lastSeen` first, then oldest `fetchedAt`, then by name)
///   and the items that reference it leave the manifest;
/// - carried-over items without a file (failed, no image) stay, with their `lastSeen`;
/// - files on disk that no remaining item references are orphans, to be removed.
///
/// Sizes come from the manifest's `bytes`, so planning needs no `stat` per file. This run's items
/// are read once, one at a time, and not kept: a 20,000-item run can hand them over as compact
/// records decoded on demand (`CrawlLedger.Contents`).
public struct CacheMaintenancePlan: Sendable, Equatable {
    /// The carried-over items kept, reconciled (this run's items stay as they are, so the
    /// manifest after the run is this run's items plus these).
    public var carried: [ManifestItem]
    /// Files (relative to OUT) to evict, in eviction order.
    public var evicted: [String]
    /// Bytes of the evicted files.
    public var evictedBytes: Int64
    /// Carried-over items dropped because their file was evicted or is gone.
    public var droppedItems: Int
    /// Cache files on disk that no kept item references and that are not evicted (sorted).
    public var orphans: [String]
    /// Bytes of the files the kept items reference.
    public var cacheBytes: Int64
    /// Whether the files this run uses alone exceed the cap (nothing more could be evicted).
    public var overCap: Bool

    /// Plans the end of a run.
    ///
    /// - Parameters:
    ///   - current: this run's items.
    ///   - previous: the items of the manifest before the run (journal folded in); those with the
    ///     same `(source, id)` as a current item are superseded by it.
    ///   - present: cache files on disk, relative to OUT (`cache/ab/<key>.<ext>`).
    ///   - capBytes: the cache size cap (`--cache-max`).
    public init<Current: Collection<ManifestItem>>(
        current: Current, previous: [ManifestItem], present: Set<String>, capBytes: Int64
    ) {
        // What of the previous manifest this run's items can supersede (same key) or share a
        // cache entry with (same stem): sets as large as the previous manifest, not this run.
        var previousKeys = Set<ItemKey>(minimumCapacity: previous.count)
        var previousStems = Set<Substring>()
        for item in previous {
            previousKeys.insert(item.key)
            if let file = item.file { previousStems.insert(Self.stem(file)) }
        }
        var superseded = Set<ItemKey>()
        var usedStems: [Substring: Current.Index] = [:]
        // The files this run's items reference, by the hash of their path (no copy of each path;
        // two paths with equal 64-bit hashes would only count as one file), and their total size.
        var used = Set<Int>(minimumCapacity: current.count)
        var usedBytes: Int64 = 0
        func use(_ file: String, bytes: Int64?) {
            if used.insert(file.hashValue).inserted { usedBytes += max(0, bytes ?? 0) }
        }
        var index = current.startIndex
        while index != current.endIndex {
            let item = current[index]
            if !previousKeys.isEmpty, previousKeys.contains(item.key) { superseded.insert(item.key) }
            if let file = item.file {
                if !previousStems.isEmpty {
                    let stem = Self.stem(file)
                    if previousStems.contains(stem), usedStems[stem] == nil { usedStems[stem] = index }
                }
                use(file, bytes: item.bytes)
            }
            if let details = item.details, let file = details.largePatchFile {
                use(file, bytes: details.largePatchBytes)
            }
            current.formIndex(after: &index)
        }
        previousKeys = []
        func usedByRun(_ file: String) -> Bool { used.contains(file.hashValue) }

        // Carried-over items: reconcile, or drop when the file is gone.
        var carried: [ManifestItem] = []
        var dropped = 0
        var seenCarried = Set<ItemKey>()
        for var item in previous where !superseded.contains(item.key) {
            guard seenCarried.insert(item.key).inserted else { continue }
            if let file = item.file {
                if let owner = usedStems[Self.stem(file)] {
                    item.takeFileFacts(from: current[owner])
                } else if !present.contains(file) {
                    dropped += 1
                    continue
                }
            }
            if let file = item.details?.largePatchFile, !usedByRun(file), !present.contains(file) {
                item.dropDetailFile(reason: "large patch file gone from the cache")
            }
            carried.append(item)
        }

        // Sizes and last use of every referenced file.
        var sizes: [String: Int64] = [:]
        var lastUse: [String: (seen: Date, fetched: Date)] = [:]
        for item in carried {
            for reference in item.cacheReferences where !usedByRun(reference.file) {
                let file = reference.file
                let seen = item.lastSeen ?? .distantPast
                let fetched = (reference.isPrimary ? item.fetchedAt : item.details?.largePatchFetchedAt) ?? .distantPast
                if let known = lastUse[file] {
                    lastUse[file] = (max(known.seen, seen), max(known.fetched, fetched))
                } else {
                    lastUse[file] = (seen, fetched)
                    sizes[file] = max(0, reference.bytes ?? 0)
                }
            }
        }
        var total = usedBytes + sizes.values.reduce(0, +)

        // Evict the least recently used files not used by this run.
        var evicted: [String] = []
        var evictedBytes: Int64 = 0
        if total > capBytes {
            let candidates = lastUse.sorted { a, b in
                if a.value.seen != b.value.seen { return a.value.seen < b.value.seen }
                if a.value.fetched != b.value.fetched { return a.value.fetched < b.value.fetched }
                return a.key < b.key
            }
            for (file, _) in candidates where total > capBytes {
                let size = sizes[file] ?? 0
                evicted.append(file)
                evictedBytes += size
                total -= size
            }
        }
        let evictedSet = Set(evicted)
        var kept: [ManifestItem] = []
        kept.reserveCapacity(carried.count)
        for var item in carried {
            if let file = item.file, evictedSet.contains(file) {
                dropped += 1
                continue
            }
            if let file = item.details?.largePatchFile, evictedSet.contains(file) {
                item.dropDetailFile(reason: "large patch evicted by --cache-max")
            }
            kept.append(item)
        }

        var referencedByCarried = Set<String>()
        for item in kept {
            for reference in item.cacheReferences { referencedByCarried.insert(reference.file) }
        }

        self.carried = kept
        self.evicted = evicted
        self.evictedBytes = evictedBytes
        self.droppedItems = dropped
        self.orphans = present.filter {
            !usedByRun($0) && !referencedByCarried.contains($0) && !evictedSet.contains($0)
        }.sorted()
        self.cacheBytes = total
        self.overCap = total > capBytes
    }

    /// A cache path without its extension: the same stem means the same URL, whatever type the
    /// image was sniffed as.
    static func stem(_ file: String) -> Substring {
        guard let dot = file.lastIndex(of: "."), !file[dot...].contains("/") else { return file[...] }
        return file[..<dot]
    }
}

extension ManifestItem {
    /// Copies what describes the cached file (not the status, error or listing facts) from `other`.
    mutating func takeFileFacts(from other: ManifestItem) {
        file = other.file
        bytes = other.bytes
        sha256 = other.sha256
        contentType = other.contentType
        width = other.width
        height = other.height
        etag = other.etag
        lastModified = other.lastModified
        fetchedAt = other.fetchedAt
    }
}
