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
    public typealias Delivery = @Sendable (Outcome, [Int]) -> Void

    private let lock = Lock()
    private var scheduler: PrefetchScheduler
    private var tasks: [String: Task<Void, Never>] = [:]
    private var completed: [String: Outcome] = [:]
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var cancelledGroups: Set<String> = []
    private var cancelledAll = false
    private var pendingDeliveries = 0
    private var maxWaitingSeen = 0

    private let keepsOutcomes: Bool
    private let operation: Operation
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
    public init(
        limits: PrefetchScheduler.Limits = .init(),
        keepsOutcomes: Bool = true,
        operation: @escaping Operation,
        cancelled: @escaping @Sendable (Request) -> Outcome,
        deliver: @escaping Delivery
    ) {
        self.scheduler = PrefetchScheduler(limits: limits)
        self.keepsOutcomes = keepsOutcomes
        self.operation = operation
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
            let step: SubmitStep = lock.withLock {
                if cancelledAll || cancelledGroups.contains(group) { return .cancelled }
                if let outcome = completed[key] { return .finished(outcome) }
                let known = scheduler.isRunning(key) || scheduler.isWaiting(key)
                guard known || scheduler.hasRoom else { return .wait }
                _ = scheduler.submit(
                    key: key, host: host, group: group, priority: priority, subscriber: subscriber)
                maxWaitingSeen = max(maxWaitingSeen, scheduler.waitingCount)
                startReadyLocked()
                return .done
            }
            switch step {
            case .done:
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
        let (removed, running, rooms): ([PrefetchScheduler.Entry], [Task<Void, Never>], [CheckedContinuation<Void, Never>]) =
            lock.withLock {
                let removed = scheduler.removeWaiting(where: matches)
                pendingDeliveries += removed.count
                let running = scheduler.runningKeys(where: matches).compactMap { tasks[$0] }
                let rooms = roomWaiters
                roomWaiters.removeAll()
                return (removed, running, rooms)
            }
        for task in running { task.cancel() }
        for entry in removed {
            let request = Request(key: entry.key, host: entry.host, group: entry.group, priority: entry.priority)
            deliver(cancelledOutcome(request), entry.subscribers)
        }
        finishDeliveries(removed.count, resuming: rooms)
    }

    /// Starts what the limits allow. Called with the lock held.
    private func startReadyLocked() {
        while let entry = scheduler.startNext() {
            let request = Request(key: entry.key, host: entry.host, group: entry.group, priority: entry.priority)
            tasks[entry.key] = Task { [self] in
                let outcome = await operation(request)
                complete(request, outcome)
            }
        }
    }

    private func complete(_ request: Request, _ outcome: Outcome) {
        let (subscribers, rooms): ([Int], [CheckedContinuation<Void, Never>]) = lock.withLock {
            let entry = scheduler.finish(request.key)
            tasks[request.key] = nil
            if keepsOutcomes && !Task.isCancelled { completed[request.key] = outcome }
            pendingDeliveries += 1
            startReadyLocked()
            var rooms: [CheckedContinuation<Void, Never>] = []
            if scheduler.hasRoom {
                rooms = roomWaiters
                roomWaiters.removeAll()
            }
            return (entry?.subscribers ?? [], rooms)
        }
        deliver(outcome, subscribers)
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
