import FeedCrawlStorage
import FoundationEssentials
import FeedCrawlHTTP

extension ImagePipeline {
    /// The committer's batch: each URL's outcome goes to every subscriber, and the URL is
    /// remembered (`finished`) so a later listing of it gets the same outcome.
    func deliver(_ jobs: [ImageCommitter.Job]) {
        var idle: [CheckedContinuation<Void, Never>] = []
        var waiters: [CheckedContinuation<Void, Never>] = []
        // One lock for the batch: the engine's thread waits on this lock to start transfers.
        lock.withLock {
            for job in jobs {
                guard let task = tasks.removeValue(forKey: job.url) else { continue }
                if let waiting = urlWaiters.removeValue(forKey: job.url) { waiters += waiting }
                let outcome = job.outcome.keeping(task.previous).bounded()
                if outcome.status != .cancelled, let first = task.subscribers.first {
                    finished[task.image.key.prefix] = .pending(token: first.token, image: first.image)
                    items.own(token: first.token, image: first.image, key: task.image.key.prefix)
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
        let places = batch.map { recorder.record($0.pending.item, page: $0.pending.page) }
        if recorder.journal.flushIsDue { committer.flushSoon() }
        lock.withLock {
            for (entry, place) in zip(batch, places) {
                for owned in entry.pending.owned {
                    finished[owned.key] = .recorded(page: place.page, item: place.item, image: owned.image)
                }
                recording[entry.token] = nil
            }
        }
    }

    /// What this run knows of `image`'s URL: an outcome it already got (not cancelled), a
    /// recorded one to read back first (`earlier`, once read, is used), or nothing.
    enum Finished {
        case none
        case outcome(ImageRecord.Outcome)
        case read(FinishedURLs.Place)
    }

    func finishedLocked(_ image: ImageURL, earlier: FinishedURLs.Recorded?) -> Finished {
        let record: ImageRecord?
        switch finished[image.key.prefix] {
        case nil:
            return .none
        case .pending(let token, let index)?:
            record = items.image(token: token, index: index) ?? recording[token]?.image(index) ?? nil
        case let place?:
            if let open = recorder.openImage(place) {
                record = open
            } else if let earlier, earlier.place == place {
                record = earlier.image
            } else {
                return .read(place)
            }
        }
        // Another URL with the same 64-bit key prefix is not this one.
        guard let record, record.url == image.url else { return .none }
        return .outcome(record.outcome)
    }

    // MARK: Cancellation

    /// Cancels everything, now and later: waiting images are `cancelled` (with `reason` as
    /// their error), transfers in flight are stopped.
    func cancelAll(reason: String = "cancelled") {
        var stopping = Stopping()
        let rooms: [CheckedContinuation<Void, Never>] = lock.withLock {
            if stopReason == nil { stopReason = reason }
            let removed = scheduler.removeWaiting { _ in true }
            for entry in removed {
                let previous = tasks.removeValue(forKey: entry.key)?.previous
                for subscriber in entry.subscribers { resolveLocked(subscriber, cancelledOutcome(previous)) }
            }
            for task in tasks.values where !task.committing { stopLocked(task, &stopping) }
            var rooms: [CheckedContinuation<Void, Never>] = []
            swap(&rooms, &roomWaiters)
            for waiting in urlWaiters.values { rooms += waiting }
            urlWaiters.removeAll()
            return rooms
        }
        recordCompleted()
        stop(stopping)
        for room in rooms { room.resume() }
        wakeIfIdle()
    }

    /// Cancels a source's images: its subscribers leave every task (getting `cancelled`); a task
    /// no other source wants is removed or stopped. Later submissions of the group are cancelled.
    func cancel(group: Int) {
        var stopping = Stopping()
        lock.withLock {
            cancelledGroups.insert(group)
            let result = scheduler.unsubscribe(group: group)
            for (key, subscriber) in result.dropped {
                resolveLocked(subscriber, cancelledOutcome(tasks[key]?.previous))
            }
            for key in result.removed { tasks[key] = nil }
            for key in result.stop {
                if let task = tasks[key] { stopLocked(task, &stopping) }
            }
        }
        recordCompleted()
        stop(stopping)
        wakeIfIdle()
    }

    /// What stopping tasks takes once the lock is let go: their transfers, their retry waits,
    /// and the tasks taken out of the host throttle's queue (ended `cancelled`).
    private struct Stopping {
        var handles: [TransferHandle] = []
        var waits: [Task<Void, Never>] = []
        var unqueued: [ImageTask] = []
    }

    /// Marks `task` stopped and notes what `stop` ends.
    private func stopLocked(_ task: ImageTask, _ stopping: inout Stopping) {
        task.stopRequested = true
        if let handle = task.handle { stopping.handles.append(handle) }
        if let wait = task.retryWait { stopping.waits.append(wait) }
        if task.queuedInThrottle, throttle.remove(task.image.url, host: task.image.host) {
            task.queuedInThrottle = false
            stopping.unqueued.append(task)
        }
    }

    private func stop(_ stopping: Stopping) {
        for handle in stopping.handles { engine.cancel(handle) }
        for wait in stopping.waits { wait.cancel() }
        for task in stopping.unqueued { end(task.image.url, .done(cancelledOutcome(task.previous), nil)) }
    }

    // MARK: The end

    /// Waits until no image waits, runs or is being saved, and the journal is saved.
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

    /// Records every item still pending (its missing images stay `cancelled`), journals every
    /// page still open, then stops the committer (which saves the journal). The run's pages are
    /// then all in the journal.
    func finish() async {
        lock.withLock {
            for (token, pending) in items.takeAll() { recordLocked(token, pending) }
        }
        recordCompleted()
        recorder.closeAll()
        await committer.stop()
    }

    /// Images this run saved (uploads, for an object store).
    var savedFiles: Int { committer.saved }

    /// The earlier copies of URLs this run saved under another name (remove them once the root
    /// no longer names them).
    var replacedFiles: [FileHandle] { committer.replaced }

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
