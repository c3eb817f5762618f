import FeedCrawlSupport
import FeedCrawlHTTP

/// Paces requests against `X-RateLimit-*` headers and 429 answers (pure state machine).
///
/// Time is a plain `Double` in seconds from any fixed origin (inject your clock).
/// Call `requestStarted(now:)` when a request goes out, `responseReceived(…)` when its
/// answer (any status) arrives, `requestAbandoned()` when it failed without an answer, and
/// ask `delayBeforeNextRequest(now:)` before each new request:
/// - 0 while budget remains: `Remaining` minus requests in flight is above 0, or the window
///   `Reset` announced has passed, or no rate-limit header was ever seen;
/// - the seconds left until `Reset` once that budget is spent;
/// - after a 429: `Retry-After` (delta seconds), else `Reset`, else `defaultWindow`.
/// `X-RateLimit-Reset` is relative seconds (Pixabay), not an epoch. Out-of-order answers in
/// the same window keep the lowest `Remaining`. Every delay is capped at `maxDelay`.
///
/// Until the first answer arrives, one request at a time: the answer tells whether the API has a
/// budget and what it is (so sources starting together cannot overrun an unknown budget).
///
/// Once the announced window has passed and `Limit` is known, at most `Limit` requests are in
/// flight before an answer tells the new window's budget, counting those sent before the reset
/// (a request sent at the end of a window may reach the server in the next one); further
/// requests are asked to wait `newWindowPollInterval` and ask again (so a burst after a reset
/// cannot overrun the budget).
public struct RateLimitPacer: Sendable, Equatable {
    /// Window assumed when `Remaining` comes without `Reset`, or a 429 with neither
    /// `Retry-After` nor `Reset`: 60 s by default (Pixabay: 100 requests per 60 s).
    public let defaultWindow: Double
    /// Longest delay ever returned: 3600 s by default.
    public let maxDelay: Double
    /// Last `X-RateLimit-Limit` seen.
    public private(set) var limit: Int?
    /// Lowest `X-RateLimit-Remaining` seen in the current window.
    public private(set) var remaining: Int?
    /// When the current window ends (now + `Reset`).
    public private(set) var resetAt: Double?
    /// No request before this time (set by a 429).
    public private(set) var blockedUntil: Double?
    /// Requests started and not yet answered or abandoned.
    public private(set) var inFlight: Int = 0
    /// Whether any answer has arrived yet.
    public private(set) var answered = false

    /// The wait suggested while a new window's budget is unknown and `Limit` requests are out:
    /// 0.05 s.
    public static let newWindowPollInterval = 0.05

    /// Two answers whose windows end within this many seconds are the same window.
    static let sameWindowTolerance = 1.5

    /// Creates a pacer with no knowledge of the budget (delay 0).
    public init(defaultWindow: Double = 60, maxDelay: Double = 3600) {
        self.defaultWindow = max(defaultWindow, 0)
        self.maxDelay = max(maxDelay, 0)
    }

    /// A request was sent.
    public mutating func requestStarted(now: Double) {
        inFlight += 1
    }

    /// A request ended without an HTTP answer (transport error, cancelled).
    public mutating func requestAbandoned() {
        inFlight = max(inFlight - 1, 0)
    }

    /// An answer arrived; header names are matched case-insensitively
    /// (`X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`, `Retry-After`).
    public mutating func responseReceived(status: Int, headers: [(name: String, value: String)], now: Double) {
        func value(_ name: String) -> String? {
            headers.last { $0.name.lowercased() == name }?.value
        }
        inFlight = max(inFlight - 1, 0)
        answered = true
        let reset = Self.seconds(value("x-ratelimit-reset")).map { min($0, maxDelay) }
        if let newLimit = Self.integer(value("x-ratelimit-limit")) { limit = newLimit }
        if let newRemaining = Self.integer(value("x-ratelimit-remaining")) {
            let newResetAt = now + (reset ?? defaultWindow)
            if let current = remaining, let currentResetAt = resetAt, now < currentResetAt,
               reset == nil || newResetAt <= currentResetAt + Self.sameWindowTolerance {
                remaining = min(current, newRemaining)
                if reset != nil { resetAt = max(currentResetAt, newResetAt) }
            } else {
                remaining = newRemaining
                resetAt = newResetAt
            }
        }
        if status == 429 {
            let wait = min(Self.seconds(value("retry-after")) ?? reset ?? defaultWindow, maxDelay)
            blockedUntil = max(blockedUntil ?? now, now + wait)
        }
    }

    /// Seconds to wait before the next request (0 = go now).
    public func delayBeforeNextRequest(now: Double) -> Double {
        var delay = 0.0
        if let blockedUntil, blockedUntil > now {
            delay = blockedUntil - now
        }
        if let remaining, let resetAt, now < resetAt, remaining - inFlight <= 0 {
            delay = max(delay, resetAt - now)
        }
        if let limit, let resetAt, now >= resetAt, inFlight >= max(limit, 1) {
            delay = max(delay, Self.newWindowPollInterval)
        }
        if !answered && inFlight >= 1 {
            delay = max(delay, Self.newWindowPollInterval)
        }
        return min(delay, maxDelay)
    }

    static func integer(_ value: String?) -> Int? {
        guard let value else { return nil }
        return Int(FeedText.trimmedASCIIWhitespace(value))
    }

    /// Non-negative finite seconds; HTTP-dates and garbage give `nil`.
    static func seconds(_ value: String?) -> Double? {
        guard let value, let d = Double(FeedText.trimmedASCIIWhitespace(value)), d.isFinite else { return nil }
        return max(d, 0)
    }
}

extension RateLimitPacer: RequestPacer {}

/// The gate of one API budget: a `RateLimitPacer` that knows nothing yet (one request until the
/// first answer, then as the answers say).
typealias RateLimitGate = RequestGate<RateLimitPacer>

extension RequestGate where Pacer == RateLimitPacer {
    convenience init(clock: (@Sendable () -> Double)? = nil) {
        self.init(pacer: RateLimitPacer(), clock: clock)
    }
}

/// The run's rate-limit budgets: one `RateLimitGate` per API key and host (sources that send
/// the same key to the same host share its budget), one per host for sources without a key.
final class RateBudgets: Sendable {
    private let gates = Locked<[String: RateLimitGate]>([:])

    init() {}

    /// The gate of `key` (nil: none) on the host of `url`.
    func gate(url: String, key: String?) -> RateLimitGate {
        let name = URLCheck.host(of: url) + "\u{0}" + (key ?? "")
        return gates.withLock { gates in
            if let gate = gates[name] { return gate }
            let gate = RateLimitGate()
            gates[name] = gate
            return gate
        }
    }
}
