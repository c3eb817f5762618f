/// The state of a running crawl at one moment, as counted by `CrawlProgress`. A plain value:
/// render it however you like (`ProgressText`).
public struct ProgressSnapshot: Sendable, Equatable {
    /// One source's progress.
    public struct Source: Sendable, Equatable {
        /// The source's name (`pixabay`, `launches`, ...).
        public var name: String
        /// Pages the run may fetch at most (0 when unknown).
        public var pagesPlanned: Int
        /// Pages fetched and parsed so far.
        public var pagesFetched: Int = 0
        /// Items the source listed so far.
        public var listed: Int = 0
        /// Items that have their outcome, by status.
        public var counts: [ItemStatus: Int] = [:]
        /// Whether the source could not be crawled at all.
        public var failed: Bool = false

        /// Creates a source with nothing counted yet.
        public init(name: String, pagesPlanned: Int) {
            self.name = name
            self.pagesPlanned = pagesPlanned
        }

        /// Items that have their outcome.
        public var finished: Int { counts.values.reduce(0, +) }
        /// Items that ended badly: failed, rejected or cancelled.
        public var problems: Int { [ItemStatus.failed, .rejected, .cancelled].reduce(0) { $0 + counts[$1, default: 0] } }
    }

    /// Sources in configuration order; sources first seen in an event are appended.
    public var sources: [Source] = []
    /// Bytes downloaded into the cache so far.
    public var bytes: Int64 = 0
    /// Image transfers finished (one per URL requested).
    public var transfers: Int = 0
    /// Retries so far (feed pages and images).
    public var retries: Int = 0
    /// Warnings so far.
    public var warnings: Int = 0
    /// Seconds since the crawl started.
    public var elapsed: Double = 0

    /// Creates an empty snapshot.
    public init(sources: [Source] = []) {
        self.sources = sources
    }

    /// Items listed by all sources.
    public var listed: Int { sources.reduce(0) { $0 + $1.listed } }
    /// Items with an outcome, by status, over all sources.
    public var counts: [ItemStatus: Int] {
        sources.reduce(into: [:]) { total, source in
            for (status, count) in source.counts { total[status, default: 0] += count }
        }
    }
    /// Items that ended well: downloaded, fresh, revalidated or without an image.
    public var done: Int {
        let counts = counts
        return [ItemStatus.downloaded, .fresh, .revalidated, .noImage].reduce(0) { $0 + counts[$1, default: 0] }
    }
    /// Items that ended badly: failed, rejected or cancelled.
    public var problems: Int { sources.reduce(0) { $0 + $1.problems } }
    /// Items listed but without an outcome yet (queued or in flight).
    public var queued: Int { max(0, listed - sources.reduce(0) { $0 + $1.finished }) }
}
