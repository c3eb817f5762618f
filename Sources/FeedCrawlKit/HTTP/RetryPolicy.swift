/// When and how long to wait before trying a failed request again.
///
/// Exponential backoff with full jitter, `Retry-After` honoured, a bounded number of retries.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt; default 3.
    public var retries: Int
    /// Delay before the first retry in seconds; default 0.25, doubled per attempt.
    public var baseDelay: Double
    /// No single wait is longer than this, whatever the server asks; default 60 s.
    public var maxDelay: Double

    public init(retries: Int = 3, baseDelay: Double = 0.25, maxDelay: Double = 60) {
        self.retries = max(0, retries)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// Whether an HTTP status is worth retrying: 5xx, 408 and 429.
    public static func isTransient(status: Int) -> Bool {
        status >= 500 || status == 408 || status == 429
    }

    /// Whether attempt number `attempt` (1-based, counting the first) may be followed by another.
    public func allowsRetry(after attempt: Int) -> Bool { attempt <= retries }

    /// The wait before retry number `attempt` (1 = first retry). `jitter` is a number in 0..<1;
    /// the wait is at least half the backoff step and never less than `retryAfter`.
    public func delay(beforeRetry attempt: Int, retryAfter: Int? = nil, jitter: Double) -> Double {
        let step = baseDelay * Double(1 << min(max(attempt - 1, 0), 16))
        let jittered = step * (0.5 + 0.5 * min(max(jitter, 0), 1))
        let floor = Double(max(retryAfter ?? 0, 0))
        return min(max(jittered, floor), maxDelay)
    }
}
