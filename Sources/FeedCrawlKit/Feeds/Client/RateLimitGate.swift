/// One API budget (a key on a host, or a host without a key), shared by every request of every
/// source that spends it: a `RateLimitPacer` behind a lock, with a monotonic clock, and a fair
/// queue: waiting requests are let through one source after another (round robin), each
/// source's in the order they came, so no source starves while others page on.
///
/// Call `acquire(source:)` before each request (it waits until the budget and the queue allow
/// it), then exactly one of `received(_:)` (any HTTP answer) or `abandoned()` (no answer).
final class RateLimitGate: @unchecked Sendable {
    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var pacer: RateLimitPacer
    private var queues: [String: [Waiter]] = [:]
    /// Sources with waiters, in the order they are served.
    private var ring: [String] = []
    private var nextInRing = 0
    private var nextID = 0
    private var timer: Task<Void, Never>?
    /// When `timer` fires (clock seconds).
    private var timerDue = 0.0
    private let clock: @Sendable () -> Double

    /// A gate with an empty pacer (one request until the first answer, then as the answers
    /// say). `clock` returns monotonic seconds; default: the continuous clock.
    init(pacer: RateLimitPacer = RateLimitPacer(), clock: (@Sendable () -> Double)? = nil) {
        self.pacer = pacer
        let origin = ContinuousClock.now
        self.clock = clock ?? {
            let elapsed = ContinuousClock.now - origin
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
    }

    /// Waits until the budget allows one more request and it is `source`'s turn, then counts it
    /// as started. Throws `CancellationError` when the task is cancelled while waiting.
    func acquire(source: String) async throws {
        try Task.checkCancellation()
        let id: Int = lock.withLock {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: [Waiter]? = lock.withLock {
                    // Cancelled before it was queued: the handler found nothing to remove, so
                    // refuse here (checked under the lock the handler takes).
                    if Task.isCancelled { return nil }
                    if queues[source] == nil {
                        queues[source] = []
                        ring.append(source)
                    }
                    queues[source]?.append(Waiter(id: id, continuation: continuation))
                    return admitLocked()
                }
                guard let ready else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                for waiter in ready { waiter.continuation.resume() }
            }
        } onCancel: {
            let cancelled: Waiter? = lock.withLock {
                guard let index = queues[source]?.firstIndex(where: { $0.id == id }) else { return nil }
                return queues[source]?.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// An answer arrived (any status); its rate-limit headers update the budget.
    func received(_ response: HTTPResponse) {
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        let now = clock()
        let ready: [Waiter] = lock.withLock {
            pacer.responseReceived(status: response.status, headers: headers, now: now)
            return admitLocked()
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// A started request ended without an answer.
    func abandoned() {
        let ready: [Waiter] = lock.withLock {
            pacer.requestAbandoned()
            return admitLocked()
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// The pacer's current state (for tests).
    var state: RateLimitPacer { lock.withLock { pacer } }

    /// Requests waiting for their turn (for tests).
    var waiting: Int { lock.withLock { queues.values.reduce(0) { $0 + $1.count } } }

    /// Lets through, in round-robin order, as many waiters as the budget allows now; when some
    /// remain, makes sure a timer calls again when the pacer says. Returns the waiters to resume.
    private func admitLocked() -> [Waiter] {
        var ready: [Waiter] = []
        while !ring.isEmpty {
            let now = clock()
            let delay = pacer.delayBeforeNextRequest(now: now)
            if delay > 0 {
                scheduleLocked(at: now + delay)
                break
            }
            if nextInRing >= ring.count { nextInRing = 0 }
            let source = ring[nextInRing]
            guard var queue = queues[source], !queue.isEmpty else {
                queues[source] = nil
                ring.remove(at: nextInRing)
                continue
            }
            ready.append(queue.removeFirst())
            pacer.requestStarted(now: now)
            if queue.isEmpty {
                queues[source] = nil
                ring.remove(at: nextInRing)
            } else {
                queues[source] = queue
                nextInRing += 1
            }
        }
        return ready
    }

    private func scheduleLocked(at due: Double) {
        if timer != nil {
            if timerDue <= due { return }
            timer?.cancel()
        }
        timerDue = due
        let delay = max(0, due - clock())
        timer = Task { [weak self] in
            do {
                try await Task.sleep(nanoseconds: UInt64(min(delay, 3600) * 1_000_000_000))
            } catch {
                return  // replaced by an earlier timer
            }
            guard let self else { return }
            let ready: [Waiter] = self.lock.withLock {
                self.timer = nil
                return self.admitLocked()
            }
            for waiter in ready { waiter.continuation.resume() }
        }
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
