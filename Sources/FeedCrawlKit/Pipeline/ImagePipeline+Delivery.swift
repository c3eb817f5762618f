import FoundationEssentials

extension ImagePipeline {
    /// The committer's batch: each URL's outcome goes to every subscriber, and the URL is
    /// remembered (`finished`) so a later listing of it gets the same outcome.
    func deliver(_ outcomes: [(url: String, outcome: ImageRecord.Outcome)]) {
        var idle: [CheckedContinuation<Void, Never>] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        // One lock for the batch: the engine's thread waits on this lock to start transfers.
        lock.withLock {
            for (url, raw) in outcomes {
                guard let task = tasks.removeValue(forKey: url) else { continue }
                if let waiting = urlWaiters.removeValue(forKey: url) { waiters += waiting }
                let outcome = raw.keeping(task.previous).bounded()
                if outcome.status != .cancelled, let first = task.subscribers.first {
                    finished[task.key.prefix] = .pending(token: first.token, image: first.image)
                    items.own(token: first.token, image: first.image, key: task.key.prefix)
                }
                for subscriber in task.subscribers { resolveLocked(subscriber, outcome) }
                if outcome.status == .downloaded { downloaded += outcome.bytes ?? 0 }
            }
            if tasks.isEmpty { swap(&idle, &idleWaiters) }
        }
        recordCompleted()
        for waiter in waiters { waiter.resume() }
        for waiter in idle { waiter.resume() }
    }

    /// Gives one subscriber its image's outcome; records the item when that completes it.
    func resolveLocked(_ subscriber: PrefetchScheduler.Subscriber, _ outcome: ImageRecord.Outcome) {
        items.resolve(token: subscriber.token, image: subscriber.image, outcome: outcome)
        if let pending = items.takeIfComplete(subscriber.token) { recordLocked(subscriber.token, pending) }
    }

    /// Ends item `token`'s registration (or its wait for details); records it when complete.
    func completeLocked(_ token: Int) {
        items.close(token)
        if let pending = items.takeIfComplete(token) { recordLocked(token, pending) }
    }

    /// Queues a complete item for `recordCompleted`, which journals it outside the lock.
    private func recordLocked(_ token: Int, _ pending: PendingItems.Pending) {
        recording[token] = pending
        recordQueue.append(token)
    }

    /// Journals the items completed so far (encoding and appending outside the lock), then
    /// points their URLs at their lines. Called after every lock section that can complete an
    /// item; until then a queued item's outcomes are still found in `recording`.
    func recordCompleted() {
        let batch: [(token: Int, pending: PendingItems.Pending)] = lock.withLock {
            guard !recordQueue.isEmpty else { return [] }
            let batch = recordQueue.compactMap { token in recording[token].map { (token, $0) } }
            recordQueue.removeAll(keepingCapacity: true)
            return batch
        }
        guard !batch.isEmpty else { return }
        let locations = batch.map { recorder.record($0.pending.item) }
        if recorder.journal.pendingCount >= 32 { committer.flushSoon() }
        lock.withLock {
            for (entry, location) in zip(batch, locations) {
                for owned in entry.pending.owned {
                    finished[owned.key] = .journaled(offset: location.offset, image: owned.image)
                }
                recording[entry.token] = nil
            }
        }
    }

    /// The outcome this run already got for `url`, when it finished one (not cancelled).
    func finishedOutcomeLocked(_ url: String, key: CacheKey) -> ImageRecord.Outcome? {
        let image: ImageRecord?
        switch finished[key.prefix] {
        case nil:
            return nil
        case .pending(let token, let index)?:
            image = items.image(token: token, index: index) ?? recording[token]?.image(index) ?? nil
        case .journaled(let offset, let index)?:
            let item = recorder.item(startingAt: offset)
            image = item.flatMap { index < $0.images.count ? $0.images[index] : nil }
        }
        // Another URL with the same 64-bit key prefix is not this one.
        guard let image, image.url == url else { return nil }
        return image.outcome
    }

    // MARK: Cancellation

    /// Cancels everything, now and later: waiting images are `cancelled` (with `reason` as
    /// their error), transfers in flight are stopped.
    func cancelAll(reason: String = "cancelled") {
        var handles: [TransferHandle] = []
        var waits: [Task<Void, Never>] = []
        var unqueued: [(url: String, previous: ImageRecord.Outcome?)] = []
        let rooms: [CheckedContinuation<Void, Never>] = lock.withLock {
            if stopReason == nil { stopReason = reason }
            let removed = scheduler.removeWaiting { _ in true }
            for entry in removed {
                let previous = tasks.removeValue(forKey: entry.key)?.previous
                for subscriber in entry.subscribers { resolveLocked(subscriber, cancelledOutcome(previous)) }
            }
            for task in tasks.values where !task.committing {
                task.stopRequested = true
                if let handle = task.handle { handles.append(handle) }
                if let wait = task.retryWait { waits.append(wait) }
                if task.queuedInThrottle, throttle.remove(task.url, host: task.host) {
                    task.queuedInThrottle = false
                    unqueued.append((task.url, task.previous))
                }
            }
            var rooms: [CheckedContinuation<Void, Never>] = []
            swap(&rooms, &roomWaiters)
            for waiting in urlWaiters.values { rooms += waiting }
            urlWaiters.removeAll()
            return rooms
        }
        recordCompleted()
        stop(handles, waits)
        for task in unqueued { end(task.url, .done(cancelledOutcome(task.previous), nil)) }
        for room in rooms { room.resume() }
        wakeIfIdle()
    }

    /// Cancels a source's images: its subscribers leave every task (getting `cancelled`); a task
    /// no other source wants is removed or stopped. Later submissions of the group are cancelled.
    func cancel(group: Int) {
        var handles: [TransferHandle] = []
        var waits: [Task<Void, Never>] = []
        var unqueued: [(url: String, previous: ImageRecord.Outcome?)] = []
        lock.withLock {
            cancelledGroups.insert(group)
            let result = scheduler.unsubscribe(group: group)
            for (key, subscriber) in result.dropped {
                resolveLocked(subscriber, cancelledOutcome(tasks[key]?.previous))
            }
            for key in result.removed { tasks[key] = nil }
            for key in result.stop {
                guard let task = tasks[key] else { continue }
                task.stopRequested = true
                if let handle = task.handle { handles.append(handle) }
                if let wait = task.retryWait { waits.append(wait) }
                if task.queuedInThrottle, throttle.remove(task.url, host: task.host) {
                    task.queuedInThrottle = false
                    unqueued.append((task.url, task.previous))
                }
            }
        }
        recordCompleted()
        stop(handles, waits)
        for task in unqueued { end(task.url, .done(cancelledOutcome(task.previous), nil)) }
        wakeIfIdle()
    }

    private func stop(_ handles: [TransferHandle], _ waits: [Task<Void, Never>]) {
        for handle in handles { engine.cancel(handle) }
        for wait in waits { wait.cancel() }
    }

    // MARK: The end

    /// Waits until no image waits, runs or is being committed, and the journal is flushed.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if tasks.isEmpty { return true }
                idleWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        await committer.drain()
    }

    /// Records every item still pending (its missing images stay `cancelled`), then stops the
    /// committer. The run's items are then all in `recorder`. With `spill`, the finished URLs'
    /// places move there (`FinishedURLs.freeze`): the end of the run needs the memory more.
    func finish(spill: Spill? = nil) {
        lock.withLock {
            for (token, pending) in items.takeAll() { recordLocked(token, pending) }
        }
        recordCompleted()
        committer.stop()
        releaseArchive()
        lock.withLock { finished.freeze(to: spill) }
    }

    private func wakeIfIdle() {
        let idle: [CheckedContinuation<Void, Never>] = lock.withLock {
            guard tasks.isEmpty else { return [] }
            var idle: [CheckedContinuation<Void, Never>] = []
            swap(&idle, &idleWaiters)
            return idle
        }
        for waiter in idle { waiter.resume() }
    }
}
