/// The pure state of the image pipeline's queue: which URLs wait, which run, who wants each.
///
/// No I/O, no clocks, no tasks: `ImagePipeline` drives it under a lock, and tests drive it alone.
/// One entry exists per key (a URL): a second submission of the same key joins the first entry
/// as one more subscriber, so every subscriber gets the one outcome. Subscribers belong to a
/// group (a source); dropping a group's subscribers removes a waiting entry, or stops a running
/// one, only when no other subscriber is left (cancel on last unsubscribe).
public struct PrefetchScheduler: Sendable {
    /// Limits on work; defaults match the command line's.
    public struct Limits: Sendable, Equatable {
        /// Requests running at once; default 16.
        public var concurrency: Int
        /// Requests running at once to one host; default 8.
        public var perHost: Int
        /// Requests waiting to start; a submitter waits while this many wait. Default 64.
        public var maxWaiting: Int

        public init(concurrency: Int = 16, perHost: Int = 8, maxWaiting: Int = 64) {
            self.concurrency = max(1, concurrency)
            self.perHost = max(1, perHost)
            self.maxWaiting = max(1, maxWaiting)
        }
    }

    /// Who wants an entry's outcome: an image (`image`, its index in the item) of a pending
    /// item (`token`) listed by a source (`group`).
    public struct Subscriber: Sendable, Hashable {
        public var token: Int
        public var image: Int
        public var group: Int

        public init(token: Int, image: Int, group: Int) {
            self.token = token
            self.image = image
            self.group = group
        }
    }

    /// One unit of work and everyone waiting for it.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var host: String
        /// `host` as a small number (this scheduler's own), for the per-host counts.
        var hostID: Int = 0
        public var priority: PrefetchPriority
        public var sequence: Int
        public var subscribers: [Subscriber]
    }

    public enum SubmitResult: Sendable, Equatable {
        /// A new entry now waits.
        case queued
        /// The key was already waiting or running; the subscriber joined it.
        case joined
    }

    public let limits: Limits
    private var waiting: [Entry] = []
    private var running: [String: Entry] = [:]
    /// Running entries per host, by host id; hosts get ids in the order they are first seen.
    private var runningPerHost: [Int] = []
    private var hostIDs: [String: Int] = [:]
    private var waitingIndex: [String: Int] = [:]
    /// Each waiting entry's (priority, sequence) packed into one number that sorts the same way,
    /// parallel to `waiting`: finding the next entry scans these 8 bytes an entry instead of
    /// whole entries (a few per cent of a 20,000-image crawl's CPU before).
    private var sortKeys: [UInt64] = []
    /// False once an entry's priority or sequence did not fit `sortKeys`; `startNext` then
    /// compares entries themselves.
    private var sortKeysExact = true
    private var nextSequence = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    public var waitingCount: Int { waiting.count }
    public var runningCount: Int { running.count }
    public var isIdle: Bool { waiting.isEmpty && running.isEmpty }
    /// Whether a new key may be queued without exceeding `maxWaiting`.
    public var hasRoom: Bool { waiting.count < limits.maxWaiting }

    public func runningCount(host: String) -> Int { hostIDs[host].map { runningPerHost[$0] } ?? 0 }
    public func isRunning(_ key: String) -> Bool { running[key] != nil }
    /// The first subscriber of the running entry `key`, if it is running.
    public func firstSubscriber(running key: String) -> Subscriber? { running[key]?.subscribers.first }
    public func isWaiting(_ key: String) -> Bool { waitingIndex[key] != nil }

    /// Adds a subscriber for `key`. The caller checks `hasRoom` first for back-pressure;
    /// joining an existing key never needs room.
    public mutating func submit(
        key: String, host: String, priority: PrefetchPriority, subscriber: Subscriber
    ) -> SubmitResult {
        if running[key] != nil {
            running[key]?.subscribers.append(subscriber)
            return .joined
        }
        if let index = waitingIndex[key] {
            waiting[index].subscribers.append(subscriber)
            if priority < waiting[index].priority {
                waiting[index].priority = priority
                sortKeys[index] = packedKey(priority, waiting[index].sequence)
            }
            return .joined
        }
        var entry = Entry(
            key: key, host: host, priority: priority, sequence: nextSequence, subscribers: [subscriber])
        if let id = hostIDs[host] {
            entry.hostID = id
        } else {
            entry.hostID = runningPerHost.count
            hostIDs[host] = entry.hostID
            runningPerHost.append(0)
        }
        nextSequence += 1
        waitingIndex[key] = waiting.count
        waiting.append(entry)
        sortKeys.append(packedKey(priority, entry.sequence))
        return .queued
    }

    /// Picks the best waiting entry that the limits allow to start, and marks it running.
    public mutating func startNext() -> Entry? {
        guard running.count < limits.concurrency, !waiting.isEmpty else { return nil }
        // While fewer than `perHost` run in all, no host can be at its cap: skip the lookups.
        let hostsMayBeFull = running.count >= limits.perHost
        if !hostsMayBeFull && sortKeysExact {
            return start(at: Self.indexOfMinimum(sortKeys))
        }
        var best = -1
        var bestPriority = PrefetchPriority(page: 0)
        var bestSequence = 0
        for index in waiting.indices {
            if hostsMayBeFull && runningPerHost[waiting[index].hostID] >= limits.perHost { continue }
            let priority = waiting[index].priority
            let sequence = waiting[index].sequence
            if best < 0 || priority < bestPriority || (priority == bestPriority && sequence < bestSequence) {
                best = index
                bestPriority = priority
                bestSequence = sequence
            }
        }
        guard best >= 0 else { return nil }
        return start(at: best)
    }

    private mutating func start(at index: Int) -> Entry {
        let entry = removeWaiting(at: index)
        running[entry.key] = entry
        runningPerHost[entry.hostID] += 1
        return entry
    }

    /// The index of the smallest of `keys` (the first of equals; keys are unique anyway).
    private static func indexOfMinimum(_ keys: [UInt64]) -> Int {
        keys.withUnsafeBufferPointer { buffer in
            var best = 0
            var smallest = buffer[0]
            for index in 1..<buffer.count where buffer[index] < smallest {
                smallest = buffer[index]
                best = index
            }
            return best
        }
    }

    /// `priority` and `sequence` as one number in the same order: tier in the top 4 bits, page
    /// in the next 20, sequence in the low 40. Values that do not fit clear `sortKeysExact`.
    private mutating func packedKey(_ priority: PrefetchPriority, _ sequence: Int) -> UInt64 {
        guard priority.tier >= 0, priority.tier < 16, priority.page >= 0, priority.page < 1 << 20,
              sequence >= 0, sequence < 1 << 40 else {
            sortKeysExact = false
            return 0
        }
        return UInt64(priority.tier) << 60 | UInt64(priority.page) << 40 | UInt64(sequence)
    }

    /// Marks a running key finished and returns its entry with every subscriber.
    public mutating func finish(_ key: String) -> Entry? {
        guard let entry = running.removeValue(forKey: key) else { return nil }
        runningPerHost[entry.hostID] = max(0, runningPerHost[entry.hostID] - 1)
        return entry
    }

    /// Removes waiting entries that match and returns them; running ones are left to the caller.
    public mutating func removeWaiting(where shouldRemove: (Entry) -> Bool) -> [Entry] {
        var removed: [Entry] = []
        var kept: [Entry] = []
        kept.reserveCapacity(waiting.count)
        for entry in waiting {
            if shouldRemove(entry) { removed.append(entry) } else { kept.append(entry) }
        }
        if !removed.isEmpty {
            waiting = kept
            rebuildIndex()
        }
        return removed
    }

    /// Keys of running entries that match.
    public func runningKeys(where matches: (Entry) -> Bool) -> [String] {
        running.values.filter(matches).map(\.key)
    }

    /// What dropping a group's subscribers did.
    public struct Unsubscribed: Sendable {
        /// The group's subscribers with their keys, each to be told its image was cancelled.
        public var dropped: [(key: String, subscriber: Subscriber)] = []
        /// Waiting keys removed: no subscriber was left.
        public var removed: [String] = []
        /// Running keys no subscriber is left for: their work should be stopped.
        public var stop: [String] = []
    }

    /// Drops every subscriber of `group`: waiting entries left without subscribers are removed,
    /// running ones are listed in `stop` (they stay running until `finish`).
    public mutating func unsubscribe(group: Int) -> Unsubscribed {
        var result = Unsubscribed()
        for index in waiting.indices where waiting[index].subscribers.contains(where: { $0.group == group }) {
            let key = waiting[index].key
            result.dropped += waiting[index].subscribers.filter { $0.group == group }.map { (key, $0) }
            waiting[index].subscribers.removeAll { $0.group == group }
        }
        let removed = removeWaiting { $0.subscribers.isEmpty }
        result.removed = removed.map(\.key)
        for key in Array(running.keys) {
            guard let subscribers = running[key]?.subscribers, subscribers.contains(where: { $0.group == group })
            else { continue }
            result.dropped += subscribers.filter { $0.group == group }.map { (key, $0) }
            running[key]?.subscribers.removeAll { $0.group == group }
            if running[key]?.subscribers.isEmpty == true { result.stop.append(key) }
        }
        return result
    }

    private mutating func removeWaiting(at index: Int) -> Entry {
        let entry = waiting[index]
        let last = waiting.count - 1
        if index != last {
            waiting[index] = waiting[last]
            sortKeys[index] = sortKeys[last]
            waitingIndex[waiting[index].key] = index
        }
        waiting.removeLast()
        sortKeys.removeLast()
        waitingIndex[entry.key] = nil
        return entry
    }

    private mutating func rebuildIndex() {
        waitingIndex.removeAll(keepingCapacity: true)
        sortKeys.removeAll(keepingCapacity: true)
        sortKeysExact = true
        for (index, entry) in waiting.enumerated() {
            waitingIndex[entry.key] = index
            sortKeys.append(packedKey(entry.priority, entry.sequence))
        }
    }
}
