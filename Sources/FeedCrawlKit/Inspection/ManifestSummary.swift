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
    /// Errors by frequency, most common first (ties by text), at most `errorLimit`.
    public var commonErrors: [ErrorCount]

    /// Counts items one at a time (files by their key, errors by text).
    struct Builder {
        var bySource: [String: [String: Int]] = [:]
        var all: [String: Int] = [:]
        var items = 0
        var fileBytes: [UInt64: Int64] = [:]
        var errors: [String: Int] = [:]

        mutating func add(_ item: ManifestItem) {
            items += 1
            bySource[item.source, default: [:]][item.status.rawValue, default: 0] += 1
            all[item.status.rawValue, default: 0] += 1
            for image in item.images {
                if let file = image.file, let key = CacheFiles.key(file), fileBytes[key] == nil {
                    fileBytes[key] = max(0, image.bytes ?? 0)
                }
                if let error = image.error, !error.isEmpty, !image.status.hasImage, errors.count < 10_000 || errors[error] != nil {
                    errors[error, default: 0] += 1
                }
            }
            if let error = item.error, !error.isEmpty { errors[error, default: 0] += 1 }
        }

        func summary(generatedAt: Date?, run: RunRecord?, errorLimit: Int) -> ManifestSummary {
            ManifestSummary(
                generatedAt: generatedAt, items: items,
                sources: bySource.keys.sorted().map { name in
                    let counts = bySource[name] ?? [:]
                    return SourceCounts(source: name, counts: counts, total: counts.values.reduce(0, +))
                },
                totals: SourceCounts(source: "total", counts: all, total: items),
                files: fileBytes.count, bytesOnDisk: fileBytes.values.reduce(0, +), lastRun: run,
                commonErrors: errors
                    .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .prefix(max(0, errorLimit))
                    .map { ErrorCount(error: $0.key, count: $0.value) })
        }
    }

    /// Statuses that occur, in `ItemStatus` order.
    public var statusesPresent: [ItemStatus] {
        ItemStatus.allCases.filter { totals.counts[$0.rawValue, default: 0] > 0 }
    }
}

extension ManifestSummary {
    /// Summarises `manifest`, keeping the `errorLimit` (default 5) most common errors.
    public init(_ manifest: Manifest, errorLimit: Int = 5) {
        var builder = Builder()
        for item in manifest.sortedItems { builder.add(item) }
        self = builder.summary(generatedAt: manifest.generatedAt, run: manifest.run, errorLimit: errorLimit)
    }

    /// Summarises a snapshot, reading its items once.
    public init(_ snapshot: ManifestSnapshot, errorLimit: Int = 5) throws {
        var builder = Builder()
        let header = try snapshot.forEachItem { builder.add($0) }
        self = builder.summary(
            generatedAt: snapshot.hasManifest ? header.generatedAt : nil, run: header.run, errorLimit: errorLimit)
    }
}
