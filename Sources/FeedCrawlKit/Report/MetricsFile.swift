import FoundationEssentials
import FeedCrawlSupport

/// `--metrics-file PATH`: a Prometheus text-format file (exposition format 0.0.4) for
/// node_exporter's textfile collector, written atomically at the end of every run and every
/// merge. Every sample of a shard's run carries `shard="K/N"`, and a shard writes its own file:
/// `feedcrawl.prom` becomes `feedcrawl-shard-2-of-4.prom` (so shards on one node do not
/// overwrite each other; the collector reads every `*.prom` file).
///
/// Every metric is a gauge, and a run writes the same families and series whatever failed, so an
/// alert can fire on a rise from 0. A run (a crawl, or a shard's part) writes:
/// - `feedcrawl_build_info{version,libcurl}` 1;
/// - `feedcrawl_run_items{source,status}`: this run's items, one series for every configured
///   source and every item status (`downloaded`, `fresh`, `revalidated`, `failed`, `rejected`,
///   `no-image`, `cancelled`), 0 included;
/// - `feedcrawl_run_images{source,status}`: this run's images, every source and every image
///   status (the item statuses but `no-image`), 0 included;
/// - `feedcrawl_manifest_items{source,status}`: the manifest after the run, every source (the
///   configured ones and any other the manifest holds) and every item status, 0 included;
/// - `feedcrawl_run_failures{source,kind}`: this run's failed and rejected items, `new` (no
///   earlier record of the item, or one that failed another way) and `repeated` (it failed the
///   same way when the archive last recorded it), every source, 0 included;
/// - `feedcrawl_run_failures_tolerated`: of them, those `--max-failures` and
///   `--only-new-failures` let the run succeed with (they did not make its status 1);
/// - `feedcrawl_source_failed{source}`: 1 when the source could not be crawled at all, else 0;
/// - `feedcrawl_source_failed_pages{source}`: its feed pages that could not be read;
/// - `feedcrawl_cache_bytes` and `feedcrawl_cache_files`: the distinct cache files the manifest
///   references after the run (0 when it could not be written);
/// - `feedcrawl_run_downloaded_bytes`, `feedcrawl_run_duration_seconds`,
///   `feedcrawl_run_exit_status`, `feedcrawl_run_start_timestamp_seconds`,
///   `feedcrawl_run_end_timestamp_seconds`;
/// - `feedcrawl_last_success_timestamp_seconds`: when the last run that ended with status 0
///   ended, kept from the previous file when this run did not; 0 when no run has.
///
/// A merge writes `feedcrawl_build_info`, `feedcrawl_manifest_items` (every source the shards'
/// parts record, every status), `feedcrawl_cache_bytes`, `feedcrawl_cache_files`, the run
/// metrics above but `feedcrawl_run_items`, `feedcrawl_run_images` and the `feedcrawl_source_*`
/// ones, `feedcrawl_last_success_timestamp_seconds`, `feedcrawl_merge_complete` and
/// `feedcrawl_merge_shards`.
///
/// `MetricsPush` (`--metrics-push URL`) pushes the same metrics to a Prometheus Pushgateway.
public struct MetricsFile: Sendable {
    /// One sample: a metric name, its labels (in order) and a value.
    public struct Sample: Sendable {
        public var name: String
        public var labels: [(String, String)]
        public var value: Double

        public init(_ name: String, _ labels: [(String, String)] = [], _ value: Double) {
            self.name = name
            self.labels = labels
            self.value = value
        }
    }

    /// Each metric's help text, in the order the file lists them.
    static let help: [(String, String)] = [
        ("feedcrawl_build_info", "Always 1; labels: the feedcrawl and libcurl versions."),
        ("feedcrawl_run_items", "Items this run listed, by source and status."),
        ("feedcrawl_run_images", "Images of the items this run listed, by source and status."),
        ("feedcrawl_manifest_items", "Items in the manifest after the run, by source and status."),
        ("feedcrawl_run_failures", "Failed and rejected items of this run, by source and kind: new, or repeated (failed the same way when last recorded)."),
        ("feedcrawl_run_failures_tolerated", "Failed and rejected items of this run that --max-failures or --only-new-failures let it succeed with."),
        ("feedcrawl_source_failed", "1 when the source could not be crawled at all, else 0."),
        ("feedcrawl_source_failed_pages", "Feed pages of the source that could not be read."),
        ("feedcrawl_run_forgotten_items", "Items --forget-after took out of the archive at the end of this run, by source."),
        ("feedcrawl_run_forgotten_bytes", "Bytes of the cache files --forget-after removed at the end of this run."),
        ("feedcrawl_cache_bytes", "Bytes of the distinct cache files the manifest references after the run."),
        ("feedcrawl_cache_files", "Distinct cache files the manifest references after the run."),
        ("feedcrawl_run_downloaded_bytes", "Bytes this run downloaded into the cache."),
        ("feedcrawl_run_duration_seconds", "How long the run took."),
        ("feedcrawl_run_exit_status", "The run's exit status (0 = every item fine)."),
        ("feedcrawl_run_start_timestamp_seconds", "When the run started, in seconds since 1970."),
        ("feedcrawl_run_end_timestamp_seconds", "When the run ended, in seconds since 1970."),
        ("feedcrawl_last_success_timestamp_seconds", "When the last run that ended with status 0 ended, in seconds since 1970 (0: none yet)."),
        ("feedcrawl_merge_complete", "1 when the merge joined a part of every shard, newer than at the last complete merge."),
        ("feedcrawl_merge_shards", "The number of shards the merge joined."),
    ]

    public var samples: [Sample] = []

    public init(samples: [Sample] = []) {
        self.samples = samples
    }

    /// The file a run writes for `path`: `path` itself, or with `-shard-K-of-N` before its
    /// extension for a shard.
    public static func path(_ path: String, shard: Shard?) -> String {
        guard let shard else { return path }
        let name = FileIO.fileName(of: path)
        let directory = FileIO.directoryName(of: path)
        let suffix = "-shard-\(shard.index)-of-\(shard.count)"
        let renamed: String
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            renamed = name[..<dot] + suffix + name[dot...]
        } else {
            renamed = name + suffix
        }
        return path.contains("/") ? directory + "/" + renamed : renamed
    }

    /// The statuses an image can have: every `ItemStatus` but `noImage` (which only items have).
    public static let imageStatuses = ItemStatus.allCases.filter { $0 != .noImage }

    /// Samples of counts by source and status under `name`: one for every source in `sources`
    /// and every status in `statuses` (default every `ItemStatus`), 0 when `bySource` has none.
    public mutating func add(
        _ name: String, bySource: [String: [ItemStatus: Int]], sources: [String],
        statuses: [ItemStatus] = ItemStatus.allCases, labels: [(String, String)]
    ) {
        for source in sources {
            for status in statuses {
                let count = bySource[source]?[status] ?? 0
                samples.append(Sample(name, [("source", source), ("status", status.rawValue)] + labels, Double(count)))
            }
        }
    }

    /// The file's text: `# HELP` and `# TYPE … gauge` once per metric, then its samples.
    public var text: String {
        var out = ""
        var names = Self.help.map(\.0)
        for sample in samples where !names.contains(sample.name) { names.append(sample.name) }
        for name in names {
            let lines = samples.filter { $0.name == name }
            guard !lines.isEmpty else { continue }
            let help = Self.help.first { $0.0 == name }?.1 ?? name
            out += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) gauge\n"
            for sample in lines {
                out += name
                if !sample.labels.isEmpty {
                    out += "{" + sample.labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                }
                out += " " + Self.format(sample.value) + "\n"
            }
        }
        return out
    }

    /// Writes the file atomically (a temporary `.part` file, which the collector ignores, then a
    /// rename).
    public func write(to path: String) throws(FileSystemError) {
        try AtomicFile.createDirectories(FileIO.directoryName(of: path))
        try AtomicFile.write(Array(text.utf8), to: path, durable: false)
    }

    /// `feedcrawl_last_success_timestamp_seconds` as the file at `path` records it, if it does.
    public static func lastSuccess(in path: String) -> Double? {
        guard let bytes = try? FileIO.read(path, maxBytes: 4 << 20) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        where line.hasPrefix("feedcrawl_last_success_timestamp_seconds") {
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { return value }
        }
        return nil
    }

    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func escapeHelp(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\n", with: "\\n")
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension MetricsFile {
    /// The metrics of a crawl that ended with `exitStatus`; `previous` is the file it replaces
    /// (for the last success time when this run failed); `version` is feedcrawl's version
    /// number for `feedcrawl_build_info`.
    public static func crawl(_ report: CrawlReport, exitStatus: Int, previous: String?, version: String) -> MetricsFile {
        var file = MetricsFile()
        let labels: [(String, String)] = report.shard.map { [("shard", $0.description)] } ?? []
        file.addBuildInfo(version: version, labels: labels)
        let sources = adding(report.sources.map(\.name) + report.runBySource.keys.sorted(), to: report.sourceNames)
        let manifestSources = adding(report.manifestBySource.keys.sorted(), to: sources)
        file.add("feedcrawl_run_items", bySource: report.runBySource.mapValues(\.items), sources: sources, labels: labels)
        file.add(
            "feedcrawl_run_images", bySource: report.runBySource.mapValues(\.images), sources: sources,
            statuses: imageStatuses, labels: labels)
        file.add(
            "feedcrawl_manifest_items", bySource: report.manifestBySource.mapValues(\.items), sources: manifestSources,
            labels: labels)
        for source in sources {
            let items = report.runBySource[source]?.items ?? [:]
            let failures = items[.failed, default: 0] + items[.rejected, default: 0]
            let new = min(report.newFailures[source] ?? 0, failures)
            file.samples.append(Sample("feedcrawl_run_failures", [("source", source), ("kind", "new")] + labels, Double(new)))
            file.samples.append(Sample(
                "feedcrawl_run_failures", [("source", source), ("kind", "repeated")] + labels, Double(failures - new)))
        }
        file.samples.append(Sample("feedcrawl_run_failures_tolerated", labels, Double(report.toleratedFailures)))
        for source in sources {
            let outcome = report.sources.first { $0.name == source }
            file.samples.append(Sample(
                "feedcrawl_source_failed", [("source", source)] + labels, outcome?.failure != nil ? 1 : 0))
            file.samples.append(Sample(
                "feedcrawl_source_failed_pages", [("source", source)] + labels, Double(outcome?.failedPages ?? 0)))
        }
        for source in sources {
            file.samples.append(Sample(
                "feedcrawl_run_forgotten_items", [("source", source)] + labels, Double(report.forgottenItems[source] ?? 0)))
        }
        file.samples.append(Sample("feedcrawl_run_forgotten_bytes", labels, Double(report.forgottenBytes)))
        file.addCache(bytes: report.cacheBytes, files: report.cacheFiles, footprint: report.footprint, labels: labels)
        file.addRun(
            bytes: report.bytesDownloaded, seconds: report.seconds, exitStatus: exitStatus, start: report.startedAt,
            end: report.finishedAt, previous: previous, labels: labels)
        return file
    }

    /// The metrics of a merge that ended with `exitStatus`; `version` is feedcrawl's version
    /// number for `feedcrawl_build_info`.
    public static func merge(_ report: ShardMerge.Report, exitStatus: Int, previous: String?, version: String) -> MetricsFile {
        var file = MetricsFile()
        file.addBuildInfo(version: version, labels: [])
        let sources = adding(report.bySource.keys.sorted(), to: report.sourceNames)
        file.add("feedcrawl_manifest_items", bySource: report.bySource.mapValues(\.items), sources: sources, labels: [])
        file.addCache(bytes: report.cacheBytes, files: report.cacheFiles, footprint: report.footprint, labels: [])
        file.addRun(
            bytes: 0, seconds: report.finishedAt.timeIntervalSince(report.startedAt), exitStatus: exitStatus,
            start: report.startedAt, end: report.finishedAt, previous: previous, labels: [])
        file.samples.append(Sample("feedcrawl_merge_complete", [], report.complete ? 1 : 0))
        file.samples.append(Sample("feedcrawl_merge_shards", [], Double(report.shards)))
        return file
    }

    /// The metrics of a forget (`feedcrawl forget --metrics-file`) that ended with `exitStatus`:
    /// the archive's items and files after it, the items it forgot by source (every source the
    /// archive held before, 0 for those it kept whole), the bytes it removed, and its own run
    /// times and status (as a merge writes them).
    public static func forget(_ report: Forget.Report, exitStatus: Int, previous: String?, version: String) -> MetricsFile {
        var file = MetricsFile()
        file.addBuildInfo(version: version, labels: [])
        file.add("feedcrawl_manifest_items", bySource: report.bySource.mapValues(\.items),
                 sources: report.bySource.keys.sorted(), labels: [])
        for source in adding(report.items.keys.sorted(), to: report.sources) {
            file.samples.append(Sample("feedcrawl_run_forgotten_items", [("source", source)], Double(report.items[source] ?? 0)))
        }
        file.samples.append(Sample("feedcrawl_run_forgotten_bytes", [], Double(report.bytes)))
        file.addCache(bytes: report.cacheBytes, files: report.cacheFiles, footprint: report.footprint, labels: [])
        file.addRun(
            bytes: 0, seconds: report.finishedAt.timeIntervalSince(report.startedAt), exitStatus: exitStatus,
            start: report.startedAt, end: report.finishedAt, previous: previous, labels: [])
        return file
    }

    /// `names`, then each of `more` they do not hold yet, in order.
    private static func adding(_ more: [String], to names: [String]) -> [String] {
        more.reduce(into: names) { names, name in if !names.contains(name) { names.append(name) } }
    }

    private mutating func addBuildInfo(version: String, labels: [(String, String)]) {
        samples.append(Sample("feedcrawl_build_info", [("version", version), ("libcurl", BuildInfo.libcurlVersion)] + labels, 1))
    }

    /// The cache's files and bytes, and what OUT holds by part as `--cache-max` counts it
    /// (`feedcrawl_out_bytes{part}`: the images, then `footprint`'s parts; 0 when not measured).
    private mutating func addCache(bytes: Int64, files: Int, footprint: ArchiveFootprint?, labels: [(String, String)]) {
        samples.append(Sample("feedcrawl_cache_bytes", labels, Double(bytes)))
        samples.append(Sample("feedcrawl_cache_files", labels, Double(files)))
        let parts = footprint ?? ArchiveFootprint()
        for (part, value) in [("images", bytes), ("archive", parts.archive), ("pages", parts.pages),
                              ("sheet", parts.sheet), ("state", parts.state)] {
            samples.append(Sample("feedcrawl_out_bytes", [("part", part)] + labels, Double(value)))
        }
    }

    private mutating func addRun(
        bytes: Int64, seconds: Double, exitStatus: Int, start: Date, end: Date, previous: String?,
        labels: [(String, String)]
    ) {
        let endTime = Self.milliseconds(end)
        samples.append(Sample("feedcrawl_run_downloaded_bytes", labels, Double(bytes)))
        samples.append(Sample("feedcrawl_run_duration_seconds", labels, (seconds * 1000).rounded() / 1000))
        samples.append(Sample("feedcrawl_run_exit_status", labels, Double(exitStatus)))
        samples.append(Sample("feedcrawl_run_start_timestamp_seconds", labels, Self.milliseconds(start)))
        samples.append(Sample("feedcrawl_run_end_timestamp_seconds", labels, endTime))
        let last = exitStatus == 0 ? endTime : previous.flatMap(Self.lastSuccess(in:)) ?? 0
        samples.append(Sample("feedcrawl_last_success_timestamp_seconds", labels, last))
    }

    private static func milliseconds(_ date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000).rounded() / 1000
    }
}
