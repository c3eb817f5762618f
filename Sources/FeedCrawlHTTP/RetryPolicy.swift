import FeedCrawlSupport

/// When and how long to wait before trying a failed request again, for feeds and images alike.
///
/// Exponential backoff with full jitter, a bounded number of retries, and `Retry-After` honoured:
/// a server that asks for a wait gets at least that wait, up to `maxRetryWait`. A server that
/// asks for more, or a wait that would run past the run's deadline, ends the request at once
/// with an error that says so (`Decision.giveUp`), instead of waiting less than it asked.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt; default 3.
    public var retries: Int
    /// Delay before the first retry in seconds; default 0.25, doubled per attempt.
    public var baseDelay: Double
    /// No backoff step is longer than this; default 60 s. (A `Retry-After` may ask for more, up
    /// to `maxRetryWait`.)
    public var maxDelay: Double
    /// The longest `Retry-After` honoured, in seconds (`--max-retry-wait`); default 300 (5m).
    public var maxRetryWait: Double
    /// When the run stops (`--deadline`); no wait runs past it. Default nil (no deadline).
    public var deadline: ContinuousClock.Instant?

    public init(
        retries: Int = 3, baseDelay: Double = 0.25, maxDelay: Double = 60, maxRetryWait: Double = 300,
        deadline: ContinuousClock.Instant? = nil
    ) {
        self.retries = max(0, retries)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxRetryWait = max(0, maxRetryWait)
        self.deadline = deadline
    }

    /// What to do before the next attempt.
    public enum Decision: Sendable, Equatable {
        /// Wait this many seconds, then try again.
        case wait(Double)
        /// Do not try again: the reason, for the error message (e.g. `the server asked to retry
        /// after 1h (Retry-After: 3600), more than --max-retry-wait 5m`).
        case giveUp(String)
    }

    /// Whether attempt number `attempt` (1-based, counting the first) may be followed by another.
    public func allowsRetry(after attempt: Int) -> Bool { attempt <= retries }

    /// The wait before retry number `attempt` (1 = first retry), or why there is none.
    ///
    /// The backoff step is `baseDelay × 2^(attempt-1)`, jittered into its upper half by `jitter`
    /// (0..<1) and capped at `maxDelay`; the wait is the larger of that and `retryAfter`. A
    /// `retryAfter` above `maxRetryWait`, or a wait that would end after `deadline`, gives up.
    public func decide(
        beforeRetry attempt: Int, retryAfter: Int? = nil, jitter: Double,
        now: ContinuousClock.Instant = .now
    ) -> Decision {
        let step = baseDelay * Double(1 << min(max(attempt - 1, 0), 16))
        let jittered = min(step * (0.5 + 0.5 * min(max(jitter, 0), 1)), maxDelay)
        var wait = jittered
        if let retryAfter, retryAfter > 0 {
            let asked = Double(retryAfter)
            if asked > maxRetryWait {
                return .giveUp("the server asked to retry after \(DurationParser.format(asked)) (Retry-After: \(retryAfter)), "
                    + "more than --max-retry-wait \(DurationParser.format(maxRetryWait))")
            }
            wait = max(wait, asked)
        }
        if let deadline {
            let left = Self.seconds(deadline - now)
            if wait >= left {
                let asked = retryAfter.map { " (Retry-After: \($0))" } ?? ""
                return .giveUp("a retry after \(DurationParser.format(wait))\(asked) would pass --deadline")
            }
        }
        return .wait(wait)
    }

    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
