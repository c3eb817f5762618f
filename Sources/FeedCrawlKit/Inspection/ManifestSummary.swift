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

    /// When the manifest was written.
    public var generatedAt: Date
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
    /// Errors by frequency, most common first (ties by text), at most `errorLimit`.
    public var commonErrors: [ErrorCount]

    /// Summarises `manifest`, keeping the `errorLimit` (default 5) most common errors.
    public init(_ manifest: Manifest, errorLimit: Int = 5) {
        var bySource: [String: [String: Int]] = [:]
        var all: [String: Int] = [:]
        var fileBytes: [String: Int64] = [:]
        var errors: [String: Int] = [:]
        for item in manifest.items {
            bySource[item.source, default: [:]][item.status.rawValue, default: 0] += 1
            all[item.status.rawValue, default: 0] += 1
            for reference in item.cacheReferences where fileBytes[reference.file] == nil {
                fileBytes[reference.file] = max(0, reference.bytes ?? 0)
            }
            if let error = item.error, !error.isEmpty { errors[error, default: 0] += 1 }
        }
        generatedAt = manifest.generatedAt
        items = manifest.items.count
        sources = bySource.keys.sorted().map { name in
            let counts = bySource[name] ?? [:]
            return SourceCounts(source: name, counts: counts, total: counts.values.reduce(0, +))
        }
        totals = SourceCounts(source: "total", counts: all, total: manifest.items.count)
        files = fileBytes.count
        bytesOnDisk = fileBytes.values.reduce(0, +)
        lastRun = manifest.run
        commonErrors = errors
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .prefix(max(0, errorLimit))
            .map { ErrorCount(error: $0.key, count: $0.value) }
    }

    /// Statuses that occur, in `ItemStatus` order.
    public var statusesPresent: [ItemStatus] {
        ItemStatus.allCases.filter { totals.counts[$0.rawValue, default: 0] > 0 }
    }
}
