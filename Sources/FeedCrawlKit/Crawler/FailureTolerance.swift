import FeedCrawlSupport

/// Which of a run's failed and rejected items fail it (exit status 1): `--max-failures` and
/// `--only-new-failures`. A failure is *repeated* when the archive's earlier record of the item
/// failed the same way (`FailureMark`), else *new*; every failure is still counted, in the
/// summary, the manifest and the metrics.
public struct FailureTolerance: Sendable, Equatable {
    /// Failures that still let the run succeed: a count, or a percentage of the items the run
    /// listed; default nil: none.
    public var maxFailures: ItemLimit? = nil
    /// Whether only new failures fail the run; default false (every failure does).
    public var onlyNew = false

    public init(maxFailures: ItemLimit? = nil, onlyNew: Bool = false) {
        self.maxFailures = maxFailures
        self.onlyNew = onlyNew
    }

    /// How many of a run's `failures` (`repeated` of them repeated) fail a run of `items` items:
    /// the ones that count (all, or the new ones with `onlyNew`), or 0 when they are within
    /// `maxFailures`.
    public func failing(failures: Int, repeated: Int, items: Int) -> Int {
        let counting = onlyNew ? max(failures - repeated, 0) : failures
        guard counting > 0 else { return 0 }
        if let maxFailures, !maxFailures.isExceeded(by: counting, of: items) { return 0 }
        return counting
    }

    /// The options that give it: `--max-failures 5 --only-new-failures`; empty for none.
    public var described: String {
        var parts: [String] = []
        if let maxFailures { parts.append("--max-failures " + maxFailures.described) }
        if onlyNew { parts.append("--only-new-failures") }
        return parts.joined(separator: " ")
    }
}

/// A failed or rejected item as this run recorded it, to compare with the archive's earlier
/// record of the same item: it failed *the same way* when the item's status and, for each
/// image that failed or was rejected, its variant, URL, status and error are the same.
struct FailureMark: Sendable {
    var source: String
    var id: String
    /// A hash of how the item failed (this process's `Hasher`: compared within one run only).
    var way: Int

    init(_ item: ManifestItem) {
        source = item.source
        id = item.id
        way = Self.way(item)
    }

    /// How `item` failed, hashed.
    static func way(_ item: ManifestItem) -> Int {
        var hasher = Hasher()
        hasher.combine(item.status.rawValue)
        hasher.combine(item.error)
        for image in item.images where image.status == .failed || image.status == .rejected {
            hasher.combine(image.variant)
            hasher.combine(image.url)
            hasher.combine(image.status.rawValue)
            hasher.combine(image.error)
        }
        return hasher.finalize()
    }
}
