import FoundationEssentials

/// Summary of the run that produced a manifest.
public struct RunRecord: Codable, Sendable, Equatable {
    /// What one source did during the run.
    public struct SourceSummary: Codable, Sendable, Equatable {
        /// Source name.
        public var source: String
        /// Pages fetched.
        public var pages: Int
        /// Items listed.
        public var items: Int
        /// Why listing stopped early, if it did.
        public var error: String?
        /// Problems that did not stop the source (a bad page, a repeated cursor, partial
        /// GraphQL data); nil when there were none.
        public var warnings: [String]?
        /// Feed pages that could not be read (an error after retries, a body that is not a
        /// page): their items are missing from this run. Nil when none were lost, and in
        /// manifests written before it was recorded (their `warnings` still name such pages).
        public var failedPages: Int?

        /// Creates a summary; `error` defaults to nil.
        public init(source: String, pages: Int, items: Int, error: String? = nil) {
            self.source = source
            self.pages = pages
            self.items = items
            self.error = error
        }
    }

    /// When the run started.
    public var startedAt: Date
    /// When it finished; nil while running.
    public var finishedAt: Date?
    /// Effective options, as text. Never secrets: pass them through `redacted(_:)`.
    public var options: [String: String]
    /// This run's items per `ItemStatus` raw value.
    public var counts: [String: Int]
    /// This run's images per `ItemStatus` raw value; nil in version-1 manifests.
    public var images: [String: Int]?
    /// Bytes downloaded during the run.
    public var bytes: Int64
    /// Process exit status; nil while running.
    public var exitStatus: Int?
    /// Cache files evicted during the run (their items left the manifest).
    public var evicted: Int
    /// Bytes of the evicted files; nil in manifests written before it was recorded.
    public var evictedBytes: Int64?
    /// Orphaned files (no manifest entry, or `.part`) removed from the cache; nil when not recorded.
    public var orphansRemoved: Int?
    /// Whether the run stopped at its `--deadline`; nil when it did not.
    public var deadlineReached: Bool?
    /// Whether a signal (SIGINT, SIGTERM) stopped the run before it finished; nil when none did.
    public var interrupted: Bool?
    /// Per-source summaries, in source order.
    public var sources: [SourceSummary]
    /// The shard this run was (`K/N`), nil for a whole run.
    public var shard: String?
    /// Set by `manifest merge`: which shard parts it joined, and whether the set was complete.
    public var merge: MergeRecord?

    /// What a merge of shard parts joined.
    public struct MergeRecord: Codable, Sendable, Equatable {
        /// The number of shards (N).
        public var shards: Int
        /// Whether every shard's part was there and newer than at the last complete merge.
        public var complete: Bool
        /// Each shard's part that was joined: when its run started (nil: missing).
        public var parts: [Date?]
        /// The parts' start times at the last complete merge (this one's when complete): a part
        /// counts as new only when its run started after its time here.
        public var reference: [Date?]?
        /// The shards whose part was missing or not new, with why.
        public var problems: [String]?

        public init(shards: Int, complete: Bool, parts: [Date?], reference: [Date?]?, problems: [String]?) {
            self.shards = shards
            self.complete = complete
            self.parts = parts
            self.reference = reference
            self.problems = problems
        }
    }

    /// The earliest `lastSeen` an item this run listed can have, at the manifest's precision:
    /// items' `lastSeen` is written in whole seconds (rounded down) while `startedAt` keeps
    /// milliseconds, so this is `startedAt` rounded down to the second; for a merge of shard
    /// parts (`merge` set), the earliest joined part's start, rounded down the same way. An item
    /// last seen before it was not listed by the last run (or by any part of the merge). Two runs
    /// started in the same second cannot be told apart.
    public var listedSince: Date {
        let start = merge.flatMap { $0.parts.compactMap { $0 }.min() } ?? startedAt
        return start.wholeSeconds
    }

    /// Whether `item` was listed by this run: its `lastSeen`, rounded down to the second as the
    /// manifest writes it, is not before `listedSince`. False for an item never seen.
    public func listed(_ item: ManifestItem) -> Bool {
        guard let seen = item.lastSeen else { return false }
        return seen.wholeSeconds >= listedSince
    }

    /// Creates a record; everything but `startedAt` has an empty or zero default.
    public init(
        startedAt: Date, finishedAt: Date? = nil, options: [String: String] = [:], counts: [String: Int] = [:],
        bytes: Int64 = 0, exitStatus: Int? = nil, evicted: Int = 0, sources: [SourceSummary] = []
    ) {
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.options = options
        self.counts = counts
        self.bytes = bytes
        self.exitStatus = exitStatus
        self.evicted = evicted
        self.sources = sources
    }


    /// Options with secrets masked as `***`: the whole value when the option name contains
    /// `key`, `token`, `secret`, `password`, `auth` or `cookie` (case-insensitive), and otherwise
    /// the values of such parameters inside URL query strings (`?key=abc&q=x` → `?key=***&q=x`).
    public static func redacted(_ options: [String: String]) -> [String: String] {
        options.reduce(into: [:]) { out, pair in
            out[pair.key] = isSecretName(pair.key) ? "***" : redactQuery(pair.value)
        }
    }

    static let secretWords = ["key", "token", "secret", "password", "passwd", "auth", "cookie"]

    static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return secretWords.contains { lower.contains($0) }
    }

    static func redactQuery(_ value: String) -> String {
        guard let q = value.firstIndex(where: { $0 == "?" }) else { return value }
        let head = value[...q]
        let params = value[value.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false)
        let cleaned = params.map { param -> String in
            let parts = param.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, isSecretName(String(parts[0])) else { return String(param) }
            return parts[0] + "=***"
        }
        return head + cleaned.joined(separator: "&")
    }
}
