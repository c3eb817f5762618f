import FoundationEssentials

/// Joins sorted item streams into one manifest in one pass: the end of a run (this run's items
/// with the previous manifest's), the fold of a killed run's journal, and `manifest merge`
/// (shard parts). Memory does not grow with the items: streams are read one item at a time and
/// each output item is written at once; only which files are referenced is kept (for the orphan
/// sweep that follows, and to count the referenced bytes once per file: one bit per file on
/// disk, with `Policy.present`; else 8 bytes a file).
///
/// For each key the winner is picked (`Precedence`). An item that is not the run's own (carried
/// over) is first brought up to date with the run's outcome for a file it shares (`reconcile`),
/// and leaves when one of its files was evicted or is no longer on disk (`present`).
struct ManifestMerge {
    enum Precedence {
        /// Input 0 holds this run's items: they win over every other input.
        case firstInput
        /// The item listed last (`lastSeen`) wins; on a tie the later input.
        case latestSeen
    }

    struct Policy {
        var precedence: Precedence
        /// The files on disk; nil: not checked.
        var present: CacheFiles?
        /// Files `--cache-max` evicts; nil: none.
        var evicted: CacheFiles?
        /// This run's outcome for the file with a cache key, when it has one with a file.
        var reconcile: ((CacheKey) -> ImageRecord.Outcome?)?
        /// Start of the run (for a merge: of the shards' runs): with `.latestSeen`, items listed
        /// since are this run's (counted in `Result.run`, their files never evicted); the others
        /// were listed earlier. With `.firstInput` this run's items are input 0's.
        var runStarted: Date?
        /// Leave out carried items that are placeholders of feed elements without a usable id
        /// (`FeedItem.isSyntheticID`, no image): the end of a run, where the run lists such an
        /// element anew. Default false.
        var dropsPlaceholders = false
    }

    typealias Counts = StatusCounts

    struct Result {
        /// Items written that were listed at or after `runStarted`.
        var run = Counts()
        /// Every item written, and per source; `run`'s items per source.
        var total = Counts()
        var bySource: [String: Counts] = [:]
        var runBySource: [String: Counts] = [:]
        /// Every file an item written references.
        var referenced = CacheFiles()
        /// Bytes of those files, each counted once (as the items record them); only with
        /// `Policy.present` (0 without it).
        var referencedBytes: Int64 = 0
        /// With `planning`: the files carried items reference, and input 0's (protected).
        var candidates: [EvictionPlan.Candidate] = []
        var protected = CacheFiles()
        var protectedBytes: Int64 = 0
    }

    var policy: Policy
    /// Room to reserve for `Result.referenced` (files the output may reference) without
    /// `Policy.present`; default 0.
    var capacity = 0

    /// Merges `streams` (each in manifest order) and hands each item to `write`. With
    /// `planning`, collects what an `EvictionPlan` needs (and `write` may do nothing).
    func run(
        _ streams: inout [any ItemStream], planning: Bool = false, write: (StreamItem) throws -> Void
    ) throws -> Result {
        var result = Result()
        // The files on disk are known: a referenced one is a bit of that set, not 8 more bytes.
        result.referenced = policy.present.map(CacheFiles.subset(of:)) ?? CacheFiles(capacity: capacity)
        var heads: [StreamItem?] = []
        for index in streams.indices { heads.append(try streams[index].next()) }
        var protectedFiles: [(key: UInt64, bytes: Int64)] = []
        while true {
            // The smallest key among the heads, and which streams hold it.
            var best = -1
            for index in heads.indices {
                guard let head = heads[index] else { continue }
                if best < 0 || head.item.key < heads[best]!.item.key { best = index }
            }
            guard best >= 0, let bestKey = heads[best]?.item.key else { break }
            var winner = best
            for index in heads.indices where index != best {
                guard let head = heads[index], head.item.key == bestKey else { continue }
                if policy.precedence == .latestSeen {
                    let current = heads[winner]!.item.lastSeen ?? .distantPast
                    if (head.item.lastSeen ?? .distantPast) >= current { winner = index }
                }
            }
            let chosen = heads[winner]!
            for index in heads.indices where heads[index]?.item.key == bestKey {
                heads[index] = try streams[index].next()
            }
            // This run's own items are written as they are; every other item is carried over.
            let own = policy.precedence == .firstInput && winner == 0
            guard let item = own ? chosen : carry(chosen) else { continue }
            try write(item)
            // With `.firstInput` the run's own items are exactly input 0's: an item carried over
            // whose `lastSeen` is not before `runStarted` (a previous run in the same second, a
            // clock set back) is still an earlier run's.
            let recent = policy.precedence == .firstInput
                ? own : policy.runStarted.map { (item.item.lastSeen ?? .distantPast) >= $0 } ?? own
            if recent {
                result.run.add(item.item)
                result.runBySource[item.item.source, default: Counts()].add(item.item)
            }
            result.total.add(item.item)
            result.bySource[item.item.source, default: Counts()].add(item.item)
            for image in item.item.images {
                guard let file = image.file, let key = CacheFiles.key(file) else { continue }
                // A file on disk is counted in `referencedBytes` once, when it is first referenced
                // (an item whose file is not there is dropped); `referenced` is then a subset of
                // `policy.present`, its bit per file saying which were counted.
                if result.referenced.insert(key: key) { result.referencedBytes += max(0, image.bytes ?? 0) }
                guard planning else { continue }
                if recent {
                    protectedFiles.append((key, image.bytes ?? 0))
                } else {
                    result.candidates.append(.init(
                        key: key, bytes: image.bytes ?? 0, lastSeen: item.item.lastSeen ?? .distantPast,
                        fetchedAt: image.fetchedAt ?? .distantPast))
                }
            }
        }
        result.referenced.seal()
        if planning {
            for file in protectedFiles { result.protected.insert(key: file.key) }
            result.protected.seal()
            result.protectedBytes = Self.distinctBytes(&protectedFiles)
        }
        return result
    }

    /// A carried item brought up to date, or nil when it leaves (a file evicted or gone).
    private func carry(_ entry: StreamItem) -> StreamItem? {
        var item = entry.item
        // The placeholder of a feed element without a usable id is the run's that saw it: a
        // later run lists the element anew (whole, under its id, or as a placeholder again).
        if policy.dropsPlaceholders, item.images.isEmpty, FeedItem.isSyntheticID(item.id) { return nil }
        var changed = false
        for index in item.images.indices {
            guard let file = item.images[index].file, let key = CacheKey(file: file) else { continue }
            if let reconcile = policy.reconcile, let outcome = reconcile(key), outcome.file != nil,
               outcome.facts != item.images[index].outcome.facts {
                // The run stored this URL's file anew: take its facts, keep the item's status.
                var updated = outcome
                updated.status = item.images[index].status
                updated.error = item.images[index].error
                item.images[index].outcome = updated
                changed = true
            }
            let current = item.images[index].file ?? file
            if let evicted = policy.evicted, evicted.contains(current) { return nil }
            if let present = policy.present, !present.contains(current) { return nil }
        }
        return StreamItem(item: item, line: changed ? nil : entry.line)
    }

    private static func distinctBytes(_ files: inout [(key: UInt64, bytes: Int64)]) -> Int64 {
        files.sort { $0.key < $1.key }
        var total: Int64 = 0
        var last: UInt64?
        for file in files where file.key != last {
            last = file.key
            total += max(0, file.bytes)
        }
        files = []
        return total
    }
}

extension ImageRecord.Outcome {
    /// The file facts alone (status and error set aside), to compare two outcomes' files.
    var facts: Self {
        var facts = self
        facts.status = .downloaded
        facts.error = nil
        return facts
    }
}

extension Date {
    /// This date rounded down to a whole second, as the manifest's item dates are written.
    var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }

    /// This date rounded down to a whole millisecond, as a run record writes it exactly: a run
    /// starts at such a time, so the second its record names is the second its items' `lastSeen`
    /// names (rounding to the nearest millisecond could carry .9996 into the next second).
    var wholeMilliseconds: Date { Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000) }
}
