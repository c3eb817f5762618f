import FoundationEssentials

/// A finished run as one JSON object (`feedcrawl --json` prints it on stdout): this run's counts
/// by status (every status, zeros included), bytes, seconds, per-source pages, failed pages,
/// items, missing details, counts, warnings and errors, and the exit status.
public struct RunSummary: Codable, Sendable, Equatable {
    /// One source's part of the run.
    public struct Source: Codable, Sendable, Equatable {
        public var name: String
        /// Feed pages fetched and parsed.
        public var pages: Int
        /// Items the feed listed.
        public var items: Int
        /// Feed pages that could not be read (their items are missing).
        public var failedPages: Int
        /// Items left without the launch details asked for (`--details`).
        public var missingDetails: Int
        /// This source's items by status (statuses with no items left out).
        public var counts: [String: Int]
        /// Problems that did not stop the source.
        public var warnings: [String]
        /// Why the source could not be crawled at all; nil when it could.
        public var error: String?
        /// Whether the source was cut short by cancellation.
        public var cancelled: Bool
    }

    /// The process exit status (see the README's table).
    public var exitStatus: Int
    public var startedAt: Date
    public var finishedAt: Date
    /// Wall-clock seconds, rounded to milliseconds.
    public var seconds: Double
    /// Items this run listed.
    public var items: Int
    /// This run's items by status raw value; every status is present.
    public var counts: [String: Int]
    /// Bytes downloaded into the cache this run.
    public var bytes: Int64
    /// Whether the run was cut short (signal or deadline).
    public var cancelled: Bool
    public var sources: [Source]
    /// Path of the manifest written.
    public var manifest: String
    /// Path of the contact sheet written, if any.
    public var contactSheet: String?
    /// Why the manifest or the journal could not be written, if so.
    public var storageProblem: String?
    /// Images uploaded to object storage (`--out s3://…`); absent for an OUT on disk.
    public var uploads: Int?
    /// What `--forget-after` took out at the end of the run: items by source, files and their
    /// bytes; absent when nothing was forgotten.
    public var forgotten: Forgotten?

    /// What OUT holds after the run, as `--cache-max` counts it; absent in a shard and when the
    /// archive could not be committed.
    public var disk: Disk?

    /// This run's failed and rejected items: new and repeated, and how many of them
    /// `--max-failures` and `--only-new-failures` tolerated (did not fail the run).
    public var failures: Failures

    /// This run's failed and rejected items, as `--max-failures` and `--only-new-failures` judge
    /// them (`CrawlReport.failures`).
    public struct Failures: Codable, Sendable, Equatable {
        /// No earlier record of the item, or one that failed another way.
        public var new: Int
        /// The item failed the same way when the archive last recorded it.
        public var repeated: Int
        /// Those that did not fail the run.
        public var tolerated: Int
    }

    /// What OUT holds, in bytes by part (`ArchiveFootprint`), and what `--cache-max` evicted.
    public struct Disk: Codable, Sendable, Equatable {
        /// The distinct cache files the archive names, and their bytes.
        public var imageFiles: Int
        public var images: Int64
        /// The archive's own files, kept feed pages, the contact sheet, the root and other small
        /// files at OUT's top, as measured before the end of the run wrote its root and sheet.
        public var archive: Int64
        public var pages: Int64
        public var sheet: Int64
        public var state: Int64
        /// The sum: what `--cache-max` is compared with.
        public var total: Int64
        /// Images `--cache-max` evicted this run, and their bytes.
        public var evictedFiles: Int
        public var evictedBytes: Int64
    }

    /// What `--forget-after` took out.
    public struct Forgotten: Codable, Sendable, Equatable {
        public var items: [String: Int]
        public var files: Int
        public var bytes: Int64
    }

    /// Builds the summary of `report`. `sourceCounts` holds each source's items by status (from
    /// `ProgressSnapshot`); sources missing from it get empty counts.
    public init(
        report: CrawlReport, exitStatus: Int32, sourceCounts: [String: [ItemStatus: Int]] = [:],
        contactSheet: String? = nil
    ) {
        self.exitStatus = Int(exitStatus)
        startedAt = report.startedAt
        finishedAt = report.finishedAt
        seconds = (report.seconds * 1000).rounded() / 1000
        items = report.itemCount
        counts = Dictionary(uniqueKeysWithValues: ItemStatus.allCases.map { ($0.rawValue, report.count($0)) })
        bytes = report.bytesDownloaded
        cancelled = report.cancelled
        sources = report.sources.map { source in
            Source(
                name: source.name, pages: source.pages, items: source.items, failedPages: source.failedPages,
                missingDetails: source.missingDetails,
                counts: Dictionary(uniqueKeysWithValues: (sourceCounts[source.name] ?? [:]).map { ($0.key.rawValue, $0.value) }),
                warnings: source.warnings, error: source.failure, cancelled: source.cancelled)
        }
        manifest = report.manifestPath
        self.contactSheet = contactSheet
        storageProblem = report.storageProblem
        uploads = report.uploads
        if let footprint = report.footprint {
            disk = Disk(
                imageFiles: report.cacheFiles, images: report.cacheBytes, archive: footprint.archive,
                pages: footprint.pages, sheet: footprint.sheet, state: footprint.state,
                total: report.cacheBytes + footprint.total, evictedFiles: report.evictedFiles,
                evictedBytes: report.evictedBytes)
        }
        failures = Failures(
            new: report.failures - report.repeatedFailures, repeated: report.repeatedFailures,
            tolerated: report.toleratedFailures)
        if !report.forgottenItems.isEmpty {
            forgotten = Forgotten(items: report.forgottenItems, files: report.forgottenFiles, bytes: report.forgottenBytes)
        }
    }

    /// The summary as one line of JSON (sorted keys, ISO-8601 dates), without a newline.
    public func jsonLine() throws -> String {
        String(decoding: try ManifestCoding.compactEncoder().encode(self), as: UTF8.self)
    }

    /// The one-line JSON printed instead of a summary when no run took place:
    /// `{"error":"…","exitStatus":75}`.
    public static func failureLine(exitStatus: Int32, message: String) -> String {
        "{\"error\":" + JSONText.quoted(message) + ",\"exitStatus\":\(exitStatus)}"
    }
}
