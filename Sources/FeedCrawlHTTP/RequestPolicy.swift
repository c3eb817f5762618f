/// How every request of a run is made: the retry rules and the limits of one attempt. One value,
/// built once from the options (`--retries`, `--max-retry-wait`, `--deadline`,
/// `--connect-timeout`, `--max-time`), for feed pages, images and object storage alike.
public struct RequestPolicy: Sendable, Equatable {
    /// When to try again and how long to wait (`RetryPolicy`: back-off, `Retry-After`, the
    /// deadline). Default `RetryPolicy()` (3 retries from 0.25 s).
    public var retry: RetryPolicy
    /// Connect timeout (DNS + TCP + TLS) of each attempt in milliseconds (`--connect-timeout`).
    /// Default 10 000.
    public var connectTimeoutMs: Int
    /// An attempt slower than 1 KiB/s for this many seconds fails as timed out. Default 15.
    public var lowSpeedTimeSeconds: Int
    /// The longest one attempt may take in milliseconds (`--max-time`); default nil (no cap).
    public var totalTimeoutMs: Int?

    /// Creates a policy; defaults above.
    public init(
        retry: RetryPolicy = RetryPolicy(), connectTimeoutMs: Int = 10_000, lowSpeedTimeSeconds: Int = 15,
        totalTimeoutMs: Int? = nil
    ) {
        self.retry = retry
        self.connectTimeoutMs = connectTimeoutMs
        self.lowSpeedTimeSeconds = lowSpeedTimeSeconds
        self.totalTimeoutMs = totalTimeoutMs
    }

    /// How long past the deadline an attempt made before it may still run: the transfers the
    /// deadline cancels (feed pages, images) end at the deadline itself, as `cancelled`; this
    /// bounds the others (storage). 2 s.
    public static let deadlineGraceMs = 2_000

    /// Sets the limits of one attempt on `request`. Before the deadline an attempt also ends
    /// `deadlineGraceMs` after the deadline (a request that hangs cannot hold a run past
    /// `--deadline`); after it (the run's closing writes) only the limits above apply.
    public func apply(to request: inout HTTPRequest, now: ContinuousClock.Instant = .now) {
        request.connectTimeoutMs = connectTimeoutMs
        request.lowSpeedTimeSeconds = lowSpeedTimeSeconds
        request.totalTimeoutMs = totalTimeoutMs
        if let deadline = retry.deadline, deadline > now {
            let left = max(1, Int(RetryPolicy.seconds(deadline - now) * 1000)) + Self.deadlineGraceMs
            request.totalTimeoutMs = min(totalTimeoutMs ?? left, left)
            request.connectTimeoutMs = min(connectTimeoutMs, left)
        }
    }

    /// Whether an HTTP status is worth trying again, for every kind of request: 5xx, 408 and 429.
    public static func isTransient(status: Int) -> Bool {
        status >= 500 || status == 408 || status == 429
    }
}
