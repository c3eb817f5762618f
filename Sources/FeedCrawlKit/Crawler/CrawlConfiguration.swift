import FeedCrawlStorage
import FeedCrawlSupport

/// Everything one crawl needs to know. Defaults match the command line's.
public struct CrawlConfiguration: Sendable {
    /// The output folder: `manifest.json`, `cache/`, the journal and the lock. Default `output`.
    public var outDirectory: String = "output"
    /// The feeds to crawl; they run concurrently.
    public var sources: [SourceConfiguration] = []
    /// Image transfers in flight at once; default 16.
    public var concurrency: Int = 16
    /// Image transfers in flight to one host; default 8.
    public var perHost: Int = 8
    /// Requests that may wait for a transfer slot before the crawler itself waits; default 512.
    /// Large enough that the next feed page arrives before the queue runs dry (a 200-item page
    /// lasts about 30 ms at full speed), small enough to keep memory flat (about 100 KB).
    public var maxWaiting: Int = 512
    /// A cached image younger than this is `fresh` and not requested; default 24 h.
    public var ttlSeconds: Double = 24 * 3600
    /// Largest image accepted; default 20 MiB.
    public var maxImageBytes: Int64 = 20 << 20
    /// Largest feed page accepted (`--max-page-bytes`), whether fetched, kept or replayed;
    /// default 8 MiB: 3x a 20,000-launch page of the tutorial schema (2.4 MiB), 45x a 200-hit
    /// Pixabay page, twice the fixed 4 MiB of old. Decoding a page costs its body and its
    /// items, about 7x its size for real pages, so the default keeps one page's decoding within
    /// about 60 MiB; a page of tiny elements would cost more per byte (8 MiB of `{}` are 2.8
    /// million rejected items, about 800 MiB), so a list may hold one element per
    /// `FeedJSON.bytesPerElement` (64) bytes of this limit: 131,072 at the default.
    public var maxPageBytes: Int64 = 8 << 20
    /// Retries of a transient failure (network error, 5xx, 408, 429, body cut short); default 3.
    public var retries: Int = 3
    /// First retry delay in seconds, doubled per attempt, with jitter; default 0.25.
    public var retryBaseDelay: Double = 0.25
    /// CA certificates (PEM) to trust for HTTPS, as curl's `--cacert`; default: the system's.
    public var caInfo: String? = nil
    /// Stop scheduling and cancel what is in flight this many seconds after the run starts; the
    /// manifest is still written and unfinished items are `cancelled`. Default nil (no deadline).
    public var deadlineSeconds: Double? = nil
    /// After the run, least-recently-used cache files this run did not use are evicted until
    /// the cache is at most this large; default 2 GiB.
    public var cacheMaxBytes: Int64 = 2 << 30
    /// At the end of the run, forget (`Forget`) the items no run listed for this many seconds
    /// before this run started, of the sources that listed every page this run (a feed that is
    /// down, or a page lost, forgets nothing), then their images no kept item names; default nil
    /// (never). Never in a shard (the merge's archive is the one to forget from).
    public var forgetAfterSeconds: Double? = nil
    /// The most `forgetAfterSeconds` may forget in one run (more: nothing is forgotten, and the
    /// run says so); default nil, no limit.
    public var maxDelete: ItemLimit? = nil
    /// Which failed and rejected items fail the run (`--max-failures`, `--only-new-failures`):
    /// the report's `failingItems`; default: every one.
    public var failureTolerance = FailureTolerance()
    /// Called at fixed points of the run's final phase (for crash tests); default nil.
    public var checkpoint: (@Sendable (CrawlCheckpoint) -> Void)? = nil
    /// Connect timeout per transfer in milliseconds; default 10 000.
    public var connectTimeoutMs: Int = 10_000
    /// A transfer slower than 1 KiB/s for this many seconds fails; default 15.
    public var lowSpeedTimeSeconds: Int = 15
    /// The longest one transfer attempt (a feed page or an image) may take, in seconds
    /// (`--max-time`); past it the attempt fails as transient and is retried. Default 300 (5m):
    /// a 20 MB image at 1 Mbit/s needs about 160 s.
    public var maxTransferSeconds: Double = 300
    /// The `User-Agent` of every request (`--user-agent`); default `BuildInfo.userAgent`
    /// (`feedcrawl/0.2.0`).
    public var userAgent: String = BuildInfo.userAgent
    /// The proxy (`--proxy`); default nil: `http_proxy`, `https_proxy`, `all_proxy` as curl.
    public var proxy: String? = nil
    /// Hosts reached without a proxy (`--noproxy`); default nil: `no_proxy` as curl. Loopback
    /// is always reached directly.
    public var noProxy: String? = nil
    /// Fetch images from loopback and private addresses (127/8, 10/8, 172.16/12, 192.168/16,
    /// ::1, fc00::/7) even when no feed is on such an address (`--allow-private-addresses`).
    /// Link-local addresses (169.254/16, fe80::/10) are never fetched. Default false.
    public var allowPrivateAddresses = false
    /// The longest `Retry-After` waited for, in seconds (`--max-retry-wait`); a server asking for
    /// more fails that request at once. Default 300 (5m).
    public var maxRetryWaitSeconds: Double = 300

    /// Ignore the page cache (`OUT/pages`): fetch every feed page anew (and cache it again);
    /// default false.
    public var refreshPages: Bool = false
    /// Save every feed response (key removed) under this folder as it is fetched, for
    /// `replayDirectory`; default nil.
    public var recordDirectory: String? = nil
    /// Take every feed response from a folder written by `recordDirectory` instead of the
    /// network (images are fetched as usual); default nil.
    public var replayDirectory: String? = nil

    /// Run one part of the crawl (`--shard K/N`): only the shard's pages and sources, its own
    /// manifest part, journal and lock under `OUT/shards/N/K/`, the cache shared; no eviction
    /// or orphan sweep (the merge does those). Default nil: the whole crawl.
    public var shard: Shard? = nil

    /// The text an image URL is cached under (its cache file name is a hash of it); default the
    /// URL itself. The demo feed maps its per-run loopback origin to a stable one, so reruns
    /// find their cache.
    public var cacheIdentity: @Sendable (String) -> String = { $0 }

    /// The bytes a feed page's body is digested as, to tell a page unchanged since the archive's
    /// group of it (a settled page); default the body itself. The demo feed masks its per-run
    /// loopback origin, as `cacheIdentity` does.
    public var pageIdentity: @Sendable ([UInt8]) -> [UInt8] = { $0 }

    /// Keep the archive in S3-compatible object storage (`--out s3://BUCKET/PREFIX`) instead of
    /// `outDirectory`; default nil. Every file goes through the store's backend as it would
    /// through a folder's.
    public var objectStore: ObjectStoreTarget? = nil
    /// Where OUT is served over HTTP (`--public-url`): the contact sheet links its images and
    /// manifest there; default nil (relative links).
    public var publicURL: String? = nil

    public init(outDirectory: String = "output", sources: [SourceConfiguration] = []) {
        self.outDirectory = outDirectory
        self.sources = sources
    }
}
