/// A bounded prefetch queue: at most `concurrency` operations run at once (at most `perHost` to
/// one host), at most `maxWaiting` wait, and a submitter waits while the queue is full
/// (back-pressure), so memory stays flat however large the feed.
///
/// One operation runs per key (URL) per queue lifetime: later subscribers of a running key join
/// it, and subscribers of a finished key get the recorded outcome at once. Every subscriber gets
/// exactly one outcome, including `cancelled(request)` when its key was cancelled before it ran.
/// Cancellation has three grains: one key, one group (a source), everything.
public final class PrefetchQueue<Outcome: Sendable>: @unchecked Sendable {
    /// What an operation is asked to do.
    public struct Request: Sendable, Equatable {
        public var key: String
        public var host: String
        public var group: String
        public var priority: PrefetchPriority
    }

    public typealias Operation = @Sendable (Request) async -> Outcome
    /// Starts one request without a task: call `finish` exactly once, from any thread (also
    /// synchronously), with its outcome; return a closure that cancels it.
    public typealias StartOperation =
        @Sendable (Request, _ finish: @escaping @Sendable (Outcome) -> Void) -> @Sendable () -> Void
    public typealias Delivery = @Sendable (Outcome, [Int]) -> Void

    private let lock = Lock()
    private var scheduler: PrefetchScheduler
    private var tasks: [String: Task<Void, Never>] = [:]
    /// Callback mode: how to cancel each running key, and running keys that were cancelled.
    private var cancellers: [String: @Sendable () -> Void] = [:]
    private var cancelledRunning: Set<String> = []
    private var completed: [String: Outcome] = [:]
    /// Outcomes of finished keys while they are being delivered: a subscriber that comes in
    /// between the finish and the end of the delivery gets this outcome instead of a second run
    /// (without `keepsOutcomes` the caller only knows the outcome once it is delivered).
    private var delivering: [String: Outcome] = [:]
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var cancelledGroups: Set<String> = []
    private var cancelledAll = false
    private var pendingDeliveries = 0
    private var maxWaitingSeen = 0

    private let keepsOutcomes: Bool
    private let operation: Operation?
    private let startOperation: StartOperation?
    private let cancelledOutcome: @Sendable (Request) -> Outcome
    private let deliver: Delivery

    /// - Parameters:
    ///   - limits: concurrency (default 16), per-host cap (default 8), waiting bound (default 64).
    ///   - keepsOutcomes: keep each finished key's outcome, so a later subscriber of that key gets
    ///     it at once (default `true`). With `false` the queue's memory does not grow with the
    ///     number of keys, and a key submitted again after it finished runs again: deduplicate
    ///     finished keys yourself.
    ///   - operation: runs one request; it is cancelled (Swift task cancellation) by `cancel`.
    ///   - cancelled: the outcome for subscribers whose request was cancelled before it started.
    ///   - deliver: called once per finished request with its subscribers, off the queue's lock.
    public convenience init(
        limits: PrefetchScheduler.Limits = .init(),
        keepsOutcomes: Bool = true,
        operation: @escaping Operation,
        cancelled: @escaping @Sendable (Request) -> Outcome,
        deliver: @escaping Delivery
    ) {
        self.init(
            limits: limits, keepsOutcomes: keepsOutcomes, operation: operation, startOperation: nil,
            cancelled: cancelled, deliver: deliver)
    }

    /// A queue whose requests run without a task each: `start` begins one and reports its
    /// outcome through a callback (see `StartOperation`). Limits, deduplication, back-pressure,
    /// cancellation and delivery are as for the task-based queue; `start` is called without the
    /// queue's lock held.
    public convenience init(
        limits: PrefetchScheduler.Limits = .init(),
        keepsOutcomes: Bool = true,
        start: @escaping StartOperation,
        cancelled: @escaping @Sendable (Request) -> Outcome,
        deliver: @escaping Delivery
    ) {
        self.init(
            limits: limits, keepsOutcomes: keepsOutcomes, operation: nil, startOperation: start,
            cancelled: cancelled, deliver: deliver)
    }

    /// Exactly one of `operation` (task mode) and `startOperation` (callback mode) is set.
    private init(
        limits: PrefetchScheduler.Limits, keepsOutcomes: Bool, operation: Operation?,
        startOperation: StartOperation?, cancelled: @escaping @Sendable (Request) -> Outcome,
        deliver: @escaping Delivery
    ) {
        self.scheduler = PrefetchScheduler(limits: limits)
        self.keepsOutcomes = keepsOutcomes
        self.operation = operation
        self.startOperation = startOperation
        self.cancelledOutcome = cancelled
        self.deliver = deliver
    }

    /// The largest number of requests that ever waited at once (for back-pressure checks).
    public var maxWaitingObserved: Int { lock.withLock { maxWaitingSeen } }
    public var runningCount: Int { lock.withLock { scheduler.runningCount } }
    public var waitingCount: Int { lock.withLock { scheduler.waitingCount } }

    /// Subscribes `subscriber` to `key`, waiting while the queue is full.
    public func submit(
        key: String, host: String, group: String = "",
        priority: PrefetchPriority, subscriber: Int
    ) async {
        let request = Request(key: key, host: host, group: group, priority: priority)
        while true {
            var toStart: [Request] = []
            let step: SubmitStep = lock.withLock {
                if cancelledAll || cancelledGroups.contains(group) { return .cancelled }
                if let outcome = completed[key] ?? delivering[key] { return .finished(outcome) }
                let known = scheduler.isRunning(key) || scheduler.isWaiting(key)
                guard known || scheduler.hasRoom else { return .wait }
                _ = scheduler.submit(
                    key: key, host: host, group: group, priority: priority, subscriber: subscriber)
                maxWaitingSeen = max(maxWaitingSeen, scheduler.waitingCount)
                toStart = startReadyLocked()
                return .done
            }
            switch step {
            case .done:
                startCallbacks(toStart)
                return
            case .cancelled:
                deliver(cancelledOutcome(request), [subscriber])
                return
            case .finished(let outcome):
                deliver(outcome, [subscriber])
                return
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow: Bool = lock.withLock {
                        if scheduler.hasRoom || cancelledAll { return true }
                        roomWaiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Cancels one key: removed if waiting, its operation cancelled if running.
    public func cancel(key: String) {
        cancel { $0.key == key }
    }

    /// Cancels a group (a source): what waits or runs now, and whatever it submits later.
    public func cancel(group: String) {
        lock.withLock { _ = cancelledGroups.insert(group) }
        cancel { $0.group == group }
    }

    /// Cancels everything, now and later.
    public func cancelAll() {
        lock.withLock { cancelledAll = true }
        cancel { _ in true }
    }

    /// Waits until nothing waits or runs and every outcome has been delivered.
    public func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = lock.withLock {
                if isIdleLocked { return true }
                idleWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private enum SubmitStep { case done, wait, cancelled, finished(Outcome) }

    private var isIdleLocked: Bool { scheduler.isIdle && pendingDeliveries == 0 }

    private func cancel(where matches: @escaping (PrefetchScheduler.Entry) -> Bool) {
        let (removed, running, stoppers, rooms):
            ([PrefetchScheduler.Entry], [Task<Void, Never>], [@Sendable () -> Void], [CheckedContinuation<Void, Never>]) =
            lock.withLock {
                let removed = scheduler.removeWaiting(where: matches)
                pendingDeliveries += removed.count
                let keys = scheduler.runningKeys(where: matches)
                let running = keys.compactMap { tasks[$0] }
                let stoppers = keys.compactMap { key -> (@Sendable () -> Void)? in
                    guard let stop = cancellers[key] else { return nil }
                    cancelledRunning.insert(key)
                    return stop
                }
                let rooms = roomWaiters
                roomWaiters.removeAll()
                return (removed, running, stoppers, rooms)
            }
        for task in running { task.cancel() }
        for stop in stoppers { stop() }
        for entry in removed {
            let request = Request(key: entry.key, host: entry.host, group: entry.group, priority: entry.priority)
            deliver(cancelledOutcome(request), entry.subscribers)
        }
        finishDeliveries(removed.count, resuming: rooms)
    }

    /// Starts what the limits allow. Called with the lock held. Task mode starts the tasks here;
    /// callback mode returns the requests for `startCallbacks`, to be called after unlocking.
    private func startReadyLocked() -> [Request] {
        var toStart: [Request] = []
        while let entry = scheduler.startNext() {
            let request = Request(key: entry.key, host: entry.host, group: entry.group, priority: entry.priority)
            if let operation {
                tasks[entry.key] = Task { [self] in
                    let outcome = await operation(request)
                    complete(request, outcome)
                }
            } else {
                toStart.append(request)
            }
        }
        return toStart
    }

    /// Callback mode: begins each request and records how to cancel it.
    private func startCallbacks(_ requests: [Request]) {
        guard let startOperation else { return }
        for request in requests {
            let stop = startOperation(request) { [self] outcome in complete(request, outcome) }
            let cancelNow: Bool = lock.withLock {
                guard scheduler.isRunning(request.key) else { return false }  // already finished
                if cancelledRunning.contains(request.key) { return true }
                cancellers[request.key] = stop
                return false
            }
            if cancelNow { stop() }
        }
    }

    private func complete(_ request: Request, _ outcome: Outcome) {
        var toStart: [Request] = []
        let (subscribers, rooms): ([Int], [CheckedContinuation<Void, Never>]) = lock.withLock {
            let entry = scheduler.finish(request.key)
            tasks[request.key] = nil
            cancellers[request.key] = nil
            let wasCancelled = cancelledRunning.remove(request.key) != nil || Task.isCancelled
            if keepsOutcomes && !wasCancelled { completed[request.key] = outcome }
            if !keepsOutcomes && !wasCancelled { delivering[request.key] = outcome }
            pendingDeliveries += 1
            toStart = startReadyLocked()
            var rooms: [CheckedContinuation<Void, Never>] = []
            // Wake blocked submitters once the waiting list is half empty, not at every free
            // slot: they then submit a batch per wake-up instead of one request each.
            if !roomWaiters.isEmpty && scheduler.waitingCount <= scheduler.limits.maxWaiting / 2 {
                rooms = roomWaiters
                roomWaiters.removeAll()
            }
            return (entry?.subscribers ?? [], rooms)
        }
        startCallbacks(toStart)
        deliver(outcome, subscribers)
        if !keepsOutcomes { lock.withLock { _ = delivering.removeValue(forKey: request.key) } }
        finishDeliveries(1, resuming: rooms)
    }

    private func finishDeliveries(_ count: Int, resuming rooms: [CheckedContinuation<Void, Never>]) {
        for room in rooms { room.resume() }
        let idle: [CheckedContinuation<Void, Never>] = lock.withLock {
            pendingDeliveries -= count
            guard isIdleLocked else { return [] }
            let waiters = idleWaiters
            idleWaiters.removeAll()
            return waiters
        }
        for waiter in idle { waiter.resume() }
    }
}
