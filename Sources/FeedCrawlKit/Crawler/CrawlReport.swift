import FoundationEssentials

/// What a finished crawl did: this run's counts only (items carried over from earlier runs
/// are in the manifest, not here).
public struct CrawlReport: Sendable {
    public var startedAt: Date
    public var finishedAt: Date
    /// This run's items, by status.
    public var counts: [ItemStatus: Int]
    /// This run's images, by status.
    public var imageCounts: [ItemStatus: Int] = [:]
    /// This run's items and images per source, by status.
    public var runBySource: [String: StatusCounts] = [:]
    /// The manifest's items and images per source after the run, by status.
    public var manifestBySource: [String: StatusCounts] = [:]
    /// The shard this run was, if any.
    public var shard: Shard?
    /// Bytes downloaded into the cache this run.
    public var bytesDownloaded: Int64
    public var sources: [SourceReport]
    /// Set when the manifest could not be written, or the journal failed.
    public var storageProblem: String?
    /// Set when the contact sheet (`index.html`) could not be written (default nil).
    public var contactSheetProblem: String? = nil
    /// Whether the crawl was cut short by cancellation (a signal or the deadline).
    public var cancelled: Bool
    /// Path of the manifest written.
    public var manifestPath: String
    /// Whether `CrawlConfiguration.deadlineSeconds` cut the run short.
    public var deadlineReached: Bool = false
    /// Cache files evicted to respect `CrawlConfiguration.cacheMaxBytes`, and their bytes.
    public var evictedFiles: Int = 0
    public var evictedBytes: Int64 = 0
    /// Files no manifest entry referenced (and `.part` files) removed from the cache.
    public var orphansRemoved: Int = 0
    /// What `--forget-after` forgot: items by source, and the files (and their bytes) removed.
    public var forgottenItems: [String: Int] = [:]
    public var forgottenFiles = 0
    public var forgottenBytes: Int64 = 0
    /// Why `--forget-after` forgot nothing it would have (`--max-delete` refused, the store
    /// failed); nil when it did its part.
    public var forgetProblem: String?
    /// Bytes of the distinct files the manifest references after the run (as its items record
    /// them); 0 when the manifest could not be written.
    public var cacheBytes: Int64 = 0
    /// How many distinct files the manifest references after the run; 0 when the manifest could
    /// not be written.
    public var cacheFiles: Int = 0
    /// What OUT held besides images when the run measured it for `--cache-max` (before its end
    /// wrote the root and the sheet anew); nil in a shard, when it could not be measured, or when
    /// the archive could not be committed. `cacheBytes` plus its total is what `--cache-max` counts.
    public var footprint: ArchiveFootprint?
    /// The names of the sources this run was configured with (a shard's: all of them), in
    /// configuration order, whether or not they listed anything; default empty.
    public var sourceNames: [String] = []
    /// Set when the files this run uses alone, with the rest of OUT (`footprint`), exceed
    /// `cacheMaxBytes`.
    public var overCacheMax: Bool = false
    /// The most image requests that ever waited in the prefetch queue at once.
    public var peakWaiting: Int = 0
    /// Images uploaded to object storage (`--out s3://…`); nil for an OUT on disk.
    public var uploads: Int? = nil

    /// This run's failed and rejected items that are new, by source (`Crawler.newFailures`):
    /// the archive held no earlier record of the item, or one that failed another way. The rest
    /// of `failures` are repeated. Default empty.
    public var newFailures: [String: Int] = [:]
    /// Which failures fail the run (`CrawlConfiguration.failureTolerance`); default: every one.
    public var failureTolerance = FailureTolerance()

    public var itemCount: Int { counts.values.reduce(0, +) }
    public func count(_ status: ItemStatus) -> Int { counts[status, default: 0] }
    public var seconds: Double { finishedAt.timeIntervalSince(startedAt) }

    /// Items whose outcome is a problem: failed, rejected or cancelled.
    public var problemCount: Int { failures + count(.cancelled) }
    /// This run's failed and rejected items.
    public var failures: Int { count(.failed) + count(.rejected) }
    /// Of `failures`, those that failed the same way when the archive last recorded them.
    public var repeatedFailures: Int { max(failures - newFailures.values.reduce(0, +), 0) }
    /// Of `failures`, those that fail the run under `failureTolerance` (0: tolerated).
    public var failingFailures: Int {
        failureTolerance.failing(failures: failures, repeated: repeatedFailures, items: itemCount)
    }
    /// Of `failures`, those `failureTolerance` lets the run succeed with.
    public var toleratedFailures: Int { failures - failingFailures }
    /// Items that fail the run (exit status 1): the failures that count, and the cancelled.
    public var failingItems: Int { failingFailures + count(.cancelled) }
    /// Whether some source could not be crawled at all.
    public var anySourceFailed: Bool { sources.contains { $0.failure != nil } }
}
