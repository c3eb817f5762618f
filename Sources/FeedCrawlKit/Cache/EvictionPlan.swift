import FoundationEssentials

/// Which cache files `--cache-max` evicts at the end of a run (or a merge). Pure: no I/O.
///
/// Files the run used (downloaded, found fresh or revalidated: `protectedBytes`) are never
/// evicted. While the files the manifest would reference add up to more than `capBytes`, the
/// least recently used other file goes: the one whose items were last listed longest ago
/// (`lastSeen`), then fetched longest ago (`fetchedAt`), then by key. The items that reference an
/// evicted file leave the manifest.
struct EvictionPlan: Sendable {
    /// A file a carried-over item references (one per item and image; repeats are merged).
    struct Candidate: Sendable, Equatable {
        /// The file's packed key (`CacheFiles.key`).
        var key: UInt64
        var bytes: Int64
        var lastSeen: Date
        var fetchedAt: Date
    }

    /// The evicted files, in eviction order.
    private(set) var evicted: [UInt64] = []
    /// Bytes of the evicted files.
    private(set) var evictedBytes: Int64 = 0
    /// Bytes of the files left referenced.
    private(set) var cacheBytes: Int64 = 0
    /// Whether the files the run used alone exceed the cap (nothing more could be evicted).
    private(set) var overCap = false

    /// - Parameters:
    ///   - candidates: the files carried-over items reference; those in `protected` are skipped.
    ///   - protected: files the run's own items reference (never evicted), with `protectedBytes`.
    init(candidates: [Candidate], protected: CacheFiles, protectedBytes: Int64, capBytes: Int64) {
        var byKey: [UInt64: Candidate] = [:]
        for candidate in candidates where !protected.contains(key: candidate.key) {
            if var known = byKey[candidate.key] {
                known.lastSeen = max(known.lastSeen, candidate.lastSeen)
                known.fetchedAt = max(known.fetchedAt, candidate.fetchedAt)
                byKey[candidate.key] = known
            } else {
                byKey[candidate.key] = candidate
            }
        }
        var total = protectedBytes + byKey.values.reduce(0) { $0 + max(0, $1.bytes) }
        if total > capBytes {
            let order = byKey.values.sorted { a, b in
                if a.lastSeen != b.lastSeen { return a.lastSeen < b.lastSeen }
                if a.fetchedAt != b.fetchedAt { return a.fetchedAt < b.fetchedAt }
                return a.key < b.key
            }
            for file in order where total > capBytes {
                evicted.append(file.key)
                evictedBytes += max(0, file.bytes)
                total -= max(0, file.bytes)
            }
        }
        cacheBytes = total
        overCap = total > capBytes
    }

    /// The evicted files as a set.
    var evictedFiles: CacheFiles {
        var files = CacheFiles()
        for key in evicted { files.insert(key: key) }
        files.seal()
        return files
    }
}
