/// One API's rate-limit budget, shared by every request a source sends to it: a
/// `RateLimitPacer` behind a lock, with a monotonic clock.
///
/// Call `acquire()` before each request (it sleeps as long as the pacer says), then exactly one
/// of `received(_:)` (any HTTP answer) or `abandoned()` (no answer).
final class RateLimitGate: Sendable {
    private struct State: Sendable {
        var pacer: RateLimitPacer
        var waited = 0.0
    }

    private let locked: Locked<State>
    private let clock: @Sendable () -> Double

    /// Seconds `acquire()` was asked to wait so far (for reports and tests).
    var secondsWaited: Double { locked.withLock { $0.waited } }

    /// A gate with an empty pacer (no delay until an answer carries rate-limit headers).
    /// `clock` returns monotonic seconds; default: the continuous clock.
    init(pacer: RateLimitPacer = RateLimitPacer(), clock: (@Sendable () -> Double)? = nil) {
        locked = Locked(State(pacer: pacer))
        let origin = ContinuousClock.now
        self.clock = clock ?? {
            let elapsed = ContinuousClock.now - origin
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
    }

    /// Waits until the budget allows one more request, then counts it as started.
    /// Throws `CancellationError` when the task is cancelled while waiting.
    func acquire() async throws {
        while true {
            try Task.checkCancellation()
            let delay: Double = locked.withLock { state in
                let now = clock()
                let delay = state.pacer.delayBeforeNextRequest(now: now)
                if delay <= 0 { state.pacer.requestStarted(now: now) } else { state.waited += delay }
                return delay
            }
            if delay <= 0 { return }
            try await Task.sleep(nanoseconds: UInt64(min(delay, 3600) * 1_000_000_000))
        }
    }

    /// An answer arrived (any status); its rate-limit headers update the budget.
    func received(_ response: HTTPResponse) {
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        let now = clock()
        locked.withLock { $0.pacer.responseReceived(status: response.status, headers: headers, now: now) }
    }

    /// A started request ended without an answer.
    func abandoned() {
        locked.withLock { $0.pacer.requestAbandoned() }
    }

    /// The pacer's current state (for tests).
    var pacer: RateLimitPacer { locked.withLock { $0.pacer } }
}
