import FeedCrawlSupport

/// How a `RequestGate` paces its requests: a pure state machine on a monotonic clock (seconds),
/// told of every request started and ended. `RateLimitPacer` (an API's `X-RateLimit-*` budget)
/// paces feed requests, `StorePacer` (a `HostThrottle`) an object store's uploads.
package protocol RequestPacer: Sendable {
    /// Seconds to wait before the next request may start (0: now; infinite: not before a
    /// request in flight ends).
    func delayBeforeNextRequest(now: Double) -> Double
    /// A request was let through at `now`.
    mutating func requestStarted(now: Double)
    /// A started request ended without an HTTP answer.
    mutating func requestAbandoned()
    /// A started request got an answer (any status); header names as sent.
    mutating func responseReceived(status: Int, headers: [(name: String, value: String)], now: Double)
}

/// The requests that share one budget, one pacer behind a lock with a monotonic clock, and a
/// fair queue: waiting requests are let through one source after another (round robin), each
/// source's in the order they came, so no source starves while others go on. One per API key and
/// host for feeds (`RateBudgets`), one per store for uploads (`S3Client`).
///
/// Call `acquire(source:)` before each request (it waits until the pacer and the queue allow
/// it), then exactly one of `received(_:)` (any HTTP answer) or `abandoned()` (no answer), or
/// tell the pacer what happened yourself with `update(_:)` (a store's save: `PacedBackend`).
package final class RequestGate<Pacer: RequestPacer>: @unchecked Sendable {
    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = Lock()
    // Guarded by `lock`.
    private var pacer: Pacer
    private var queues: [String: [Waiter]] = [:]
    /// Sources with waiters, in the order they are served.
    private var ring: [String] = []
    private var nextInRing = 0
    private var nextID = 0
    private var timer: Task<Void, Never>?
    /// When `timer` fires (clock seconds).
    private var timerDue = 0.0
    private let clock: @Sendable () -> Double

    /// A gate pacing with `pacer`. `clock` returns monotonic seconds; default: the continuous clock.
    package init(pacer: Pacer, clock: (@Sendable () -> Double)? = nil) {
        self.pacer = pacer
        let origin = ContinuousClock.now
        self.clock = clock ?? {
            let elapsed = ContinuousClock.now - origin
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
    }

    /// Waits until the budget allows one more request and it is `source`'s turn, then counts it
    /// as started. Throws `CancellationError` when the task is cancelled while waiting.
    package func acquire(source: String) async throws {
        try Task.checkCancellation()
        // Nobody waiting and the pacer says go: start at once (what `admitLocked` would do for
        // the one waiter), without a continuation.
        let (started, id): (Bool, Int) = lock.withLock {
            let now = clock()
            if ring.isEmpty, pacer.delayBeforeNextRequest(now: now) == 0 {
                pacer.requestStarted(now: now)
                return (true, 0)
            }
            nextID += 1
            return (false, nextID)
        }
        if started { return }
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
    package func received(_ response: HTTPResponse) {
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        let now = clock()
        let ready: [Waiter] = lock.withLock {
            pacer.responseReceived(status: response.status, headers: headers, now: now)
            return admitLocked()
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// A started request ended without an answer.
    package func abandoned() {
        let ready: [Waiter] = lock.withLock {
            pacer.requestAbandoned()
            return admitLocked()
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Changes the pacer under the gate's lock (`body` gets it and the clock's now), then lets
    /// through the waiters it now allows; returns what `body` returned. For what `received` and
    /// `abandoned` do not say: a request that ended with an error that is not an HTTP answer, or a
    /// batch counted at once.
    package func update<T>(_ body: (inout Pacer, Double) -> T) -> T {
        let now = clock()
        let (result, ready): (T, [Waiter]) = lock.withLock {
            let result = body(&pacer, now)
            return (result, admitLocked())
        }
        for waiter in ready { waiter.continuation.resume() }
        return result
    }

    /// Whether no request waits for its turn (a caller that may go around the queue only when
    /// nobody is in it: `PacedBackend.saveAll`).
    package var isQueueEmpty: Bool { lock.withLock { ring.isEmpty } }

    /// The pacer's current state.
    package var state: Pacer { lock.withLock { pacer } }

    /// Requests waiting for their turn (for tests).
    package var waiting: Int { lock.withLock { queues.values.reduce(0) { $0 + $1.count } } }

    /// Lets through, in round-robin order, as many waiters as the budget allows now; when some
    /// remain, makes sure a timer calls again when the pacer says. Returns the waiters to resume.
    private func admitLocked() -> [Waiter] {
        var ready: [Waiter] = []
        while !ring.isEmpty {
            let now = clock()
            let delay = pacer.delayBeforeNextRequest(now: now)
            if delay > 0 {
                if delay.isFinite { scheduleLocked(at: now + delay) }
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
