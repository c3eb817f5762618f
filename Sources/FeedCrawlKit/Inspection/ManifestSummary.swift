import FoundationEssentials

/// What a manifest says, in numbers: items by source and status, the files the cache holds,
/// the last run, and the most common errors. Pure: built from the manifest alone (no `stat`).
public struct ManifestSummary: Sendable, Equatable, Codable {
    /// Items of one source (or of all, in `totals`) by status raw value.
    public struct SourceCounts: Sendable, Equatable, Codable {
        public var source: String
        public var counts: [String: Int]
        public var total: Int
    }

    /// One error text and how many items carry it.
    public struct ErrorCount: Sendable, Equatable, Codable {
        public var error: String
        public var count: Int
    }

    /// When the manifest was written; nil when there is none yet (no run has finished, the
    /// items come from a journal).
    public var generatedAt: Date?
    /// All items.
    public var items: Int
    /// Per source, sorted by name.
    public var sources: [SourceCounts]
    /// All sources together (`source` is `"total"`).
    public var totals: SourceCounts
    /// Distinct cache files the items reference.
    public var files: Int
    /// Their bytes, as the manifest records them.
    public var bytesOnDisk: Int64
    /// The run that wrote the manifest, if recorded.
    public var lastRun: RunRecord?
    /// What the archive's last forget took out, if any (`feedcrawl forget`, `--forget-after`).
    public var lastForget: ForgetRecord? = nil
    /// Errors by frequency, most common first (ties by text), at most `errorLimit`.
    public var commonErrors: [ErrorCount]


    /// Statuses that occur, in `ItemStatus` order.
    public var statusesPresent: [ItemStatus] {
        ItemStatus.allCases.filter { totals.counts[$0.rawValue, default: 0] > 0 }
    }
}

extension ManifestSummary {
    /// Summarises an archive without reading its items: the counts its group table keeps, the
    /// files and bytes its root totals, the last run, and the `errorLimit` (default 5) most
    /// common errors its groups keep.
    init(_ repository: Repository, errorLimit: Int = 5) {
        let root = repository.root
        let table = repository.table
        var all: [String: Int] = [:]
        var sources: [SourceCounts] = []
        for (name, totals) in table.totals.sorted(by: { $0.key < $1.key }) {
            let counts = totals.items.filter { $0.value != 0 }
            for (status, n) in counts { all[status, default: 0] += n }
            sources.append(SourceCounts(source: name, counts: counts, total: counts.values.reduce(0, +)))
        }
        let items = all.values.reduce(0, +)
        self.init(
            generatedAt: root.generation > 0 ? root.generatedAt : nil, items: items, sources: sources,
            totals: SourceCounts(source: "total", counts: all, total: items), files: root.totals.files,
            bytesOnDisk: root.totals.bytes, lastRun: root.run, lastForget: root.forgot,
            commonErrors: repository.commonErrors(limit: errorLimit).map { ErrorCount(error: $0.error, count: $0.count) })
    }
}
