/// Per-host back-off for hosts that push back: additive increase, multiplicative decrease, as TCP
/// and scrapy's AutoThrottle do. Pure: no clocks (callers pass `now`, monotonic seconds), no
/// tasks; `ImagePipeline` drives it under its lock, tests drive it alone.
///
/// A host starts unthrottled: up to `Limits.maxConcurrency` transfers, started back to back.
/// When it pushes back (`PushBack`: 429 or 503, the one rule every caller reads answers by),
/// its concurrency is halved (down to one transfer) and the time between the starts of its
/// transfers doubled (from `initialInterval`, up to `maxInterval`), at most once per round trip:
/// answers to requests started before the last decrease do not decrease again. Each run of
/// successful answers as long as the current concurrency raises it by one and shortens the
/// interval by a quarter, until the host is unthrottled again. Other hosts are not affected.
public struct HostThrottle: Sendable {
    /// Bounds of the back-off.
    public struct Limits: Sendable, Equatable {
        /// Transfers to one host at most (`--per-host`); default 8.
        public var maxConcurrency: Int
        /// The spacing after the first decrease, in seconds; default 0.25.
        public var initialInterval: Double
        /// The longest spacing, in seconds; default 30.
        public var maxInterval: Double

        public init(maxConcurrency: Int = 8, initialInterval: Double = 0.25, maxInterval: Double = 30) {
            self.maxConcurrency = max(1, maxConcurrency)
            self.initialInterval = max(0.001, initialInterval)
            self.maxInterval = max(self.initialInterval, maxInterval)
        }
    }

    /// How an answer counts.
    public enum Answer: Sendable, Equatable {
        /// 429 or 503 (`PushBack.read`).
        case pushback
        /// Any other HTTP answer: the host is keeping up.
        case answered
        /// No answer (network error, cancelled): says nothing about the host's rate.
        case none
    }

    /// A host's state, for reports.
    public struct State: Sendable, Equatable {
        /// Transfers allowed at once.
        public var concurrency: Int
        /// Seconds between the starts of two transfers (0: none).
        public var interval: Double
    }

    /// What an `admit` decided.
    public enum Admission: Sendable, Equatable {
        /// Start now (counted as in flight).
        case go
        /// Queued; `ready(now:)` hands it out when the host allows.
        case queued
    }

    private struct Host {
        var concurrency: Int
        var interval = 0.0
        var nextStart = -Double.infinity
        var inFlight = 0
        var lastDecrease = -Double.infinity
        var successes = 0
        var queue: [String] = []
        var queueHead = 0

        var isThrottled: Bool { interval > 0 }
        var queued: Int { queue.count - queueHead }
    }

    public let limits: Limits
    private var hosts: [String: Host] = [:]
    /// Hosts with a non-empty queue.
    private var waitingHosts: Set<String> = []

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// The host's concurrency and spacing now.
    public func state(_ host: String) -> State {
        let h = hosts[host]
        return State(concurrency: h?.concurrency ?? limits.maxConcurrency, interval: h?.interval ?? 0)
    }

    /// Whether any host has keys waiting.
    public var hasQueued: Bool { !waitingHosts.isEmpty }

    /// A transfer to `host` for `key` wants to start at `now`: `.go` (counted in flight) or
    /// `.queued` behind the host's limits.
    public mutating func admit(_ key: String, host: String, now: Double) -> Admission {
        if hosts[host]?.queued ?? 0 == 0, delay(host: host, now: now) == 0 {
            started(host: host, now: now)
            return .go
        }
        hosts[host, default: Host(concurrency: limits.maxConcurrency)].queue.append(key)
        waitingHosts.insert(host)
        return .queued
    }

    /// Seconds before `host` may start another transfer at `now`, leaving aside the keys queued
    /// for it: 0 now, infinite while its concurrency is used up. For a caller that waits on its
    /// own instead of queueing a key (`StorePacer`).
    public func delay(host: String, now: Double) -> Double {
        guard let h = hosts[host] else { return 0 }
        return h.inFlight >= h.concurrency ? .infinity : max(0, h.nextStart - now)
    }

    /// Counts a transfer to `host` started at `now` (as `admit` does when it says `.go`).
    public mutating func started(host: String, now: Double) {
        var h = hosts[host] ?? Host(concurrency: limits.maxConcurrency)
        h.inFlight += 1
        h.nextStart = now + h.interval
        hosts[host] = h
    }

    /// Removes a queued key (its task was stopped); false when it was not queued.
    public mutating func remove(_ key: String, host: String) -> Bool {
        guard var h = hosts[host], let index = h.queue[h.queueHead...].firstIndex(of: key) else { return false }
        h.queue.remove(at: index)
        if h.queued == 0 { waitingHosts.remove(host) }
        hosts[host] = h
        return true
    }

    /// A transfer admitted at `startedAt` ended with `answer`. Returns whether this answer
    /// slowed the host down (a decrease), for reporting.
    public mutating func finished(host: String, answer: Answer, startedAt: Double, now: Double) -> Bool {
        guard var h = hosts[host] else { return false }
        defer { hosts[host] = h }
        h.inFlight = max(0, h.inFlight - 1)
        switch answer {
        case .none:
            return false
        case .answered:
            guard h.isThrottled || h.concurrency < limits.maxConcurrency else { return false }
            h.successes += 1
            if h.successes >= h.concurrency {
                h.successes = 0
                h.concurrency = min(limits.maxConcurrency, h.concurrency + 1)
                h.interval *= 0.75
                if h.interval < limits.initialInterval / 8 { h.interval = 0 }
            }
            return false
        case .pushback:
            // Once per round trip: answers to requests sent before the last decrease were
            // already counted in it.
            guard startedAt >= h.lastDecrease else { return false }
            h.lastDecrease = now
            h.successes = 0
            h.concurrency = max(1, h.concurrency / 2)
            h.interval = h.interval == 0 ? limits.initialInterval : min(limits.maxInterval, h.interval * 2)
            h.nextStart = max(h.nextStart, now + h.interval)
            return true
        }
    }

    /// Keys that may start at `now` (each counted in flight), and when to look again for the
    /// rest (nil: not before another transfer ends).
    public mutating func ready(now: Double) -> (keys: [String], wakeAt: Double?) {
        var keys: [String] = []
        var wakeAt: Double?
        for name in waitingHosts {
            guard var h = hosts[name] else { continue }
            while h.queued > 0, h.inFlight < h.concurrency, now >= h.nextStart {
                keys.append(h.queue[h.queueHead])
                h.queueHead += 1
                h.inFlight += 1
                h.nextStart = now + h.interval
            }
            if h.queued == 0 {
                h.queue.removeAll(keepingCapacity: true)
                h.queueHead = 0
                waitingHosts.remove(name)
            } else if h.inFlight < h.concurrency {
                wakeAt = min(wakeAt ?? h.nextStart, h.nextStart)
            }
            if h.queueHead > 64 && h.queueHead * 2 > h.queue.count {
                h.queue.removeFirst(h.queueHead)
                h.queueHead = 0
            }
            hosts[name] = h
        }
        return (keys, wakeAt)
    }
}
