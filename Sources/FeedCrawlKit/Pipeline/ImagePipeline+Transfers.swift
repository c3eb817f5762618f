import FeedCrawlStorage
import FoundationEssentials
import Glibc
import FeedCrawlHTTP

/// An image URL as intake (`ImagePipeline.subscribe`) takes it in, computed once and carried
/// until its outcome is delivered: the URL as requested, the cache key of the text it is cached
/// under (its cache file name), and its host (what `--per-host` and the host throttle count).
struct ImageURL: Sendable {
    let url: String
    let key: CacheKey
    let host: String
}

/// What one URL's task needs while it is in flight (internal; guarded by the pipeline's lock).
/// A reference: the pipeline's lock sections change it in place instead of copying it out of
/// `tasks` and back; its `let`s are read without the lock.
final class ImageTask: @unchecked Sendable {
    let image: ImageURL
    /// The archived copy of the URL, for a conditional request and to keep when a fetch fails.
    let previous: ImageRecord.Outcome?
    var attempt = 1
    var handle: TransferHandle?
    var retryWait: Task<Void, Never>?
    var stopRequested = false
    var startedAt: ContinuousClock.Instant?
    /// When the host throttle admitted the current attempt (seconds since the pipeline's
    /// epoch); nil while no attempt is admitted.
    var admittedAt: Double?
    /// Whether the task waits in the host throttle's queue.
    var queuedInThrottle = false
    /// Push-back answers that did not say how long to wait (no `Retry-After`), not counted
    /// against the retries.
    var forgivenPushbacks = 0
    /// Set when the transfer is over and the outcome waits in the committer.
    var committing = false
    /// The subscribers, once the task left the scheduler (committing).
    var subscribers: [PrefetchScheduler.Subscriber] = []

    init(_ image: ImageURL, previous: ImageRecord.Outcome?) {
        self.image = image
        self.previous = previous
    }
}

extension ImagePipeline {
    /// A downloaded body to save, and an earlier copy of its URL under another name.
    struct Placement: Sendable {
        var save: SaveRequest
        var replacing: FileHandle?
    }

    /// What one attempt's result means.
    enum Attempt {
        /// The outcome, with the downloaded body to save when there is one.
        case done(ImageRecord.Outcome, Placement?)
        /// `pushback`: what the host's answer said when it pushed back (`PushBack`: 429 or 503),
        /// which slows the host down (`HostThrottle`); default nil.
        case retry(reason: String, retryAfter: Int?, pushback: PushBack? = nil)
    }

    /// Starts what the limits allow (lock held): the URLs the caller starts with `startTransfers`.
    func startReadyLocked() -> [String] {
        var starts: [String] = []
        while let entry = scheduler.startNext() { starts.append(entry.key) }
        return starts
    }

    func startTransfers(_ urls: [String]) {
        for url in urls { startAttempt(url) }
    }

    /// Starts the next attempt of `url`'s task on the engine, once the host throttle admits it.
    /// Once the output device is full (`CrawlStorage`) no attempt starts: the image is `failed`
    /// ("not fetched: …") without a request, keeping an archived copy.
    func startAttempt(_ url: String) {
        enum Begin {
            case request(ImageTask)
            /// Stopped, or not fetched: the outcome.
            case end(ImageRecord.Outcome)
            case throttled
        }
        let begin: Begin = lock.withLock {
            guard let task = tasks[url], !task.stopRequested else { return .end(cancelledOutcome(nil)) }
            if let error = storage?.itemError { return .end(.init(status: .failed, error: error)) }
            if task.admittedAt == nil {
                let now = clock()
                switch throttle.admit(url, host: task.image.host, now: now) {
                case .go: task.admittedAt = now
                case .queued:
                    task.queuedInThrottle = true
                    return .throttled
                }
            }
            if task.startedAt == nil { task.startedAt = .now }
            return .request(task)
        }
        let task: ImageTask
        switch begin {
        case .request(let admitted):
            task = admitted
        case .throttled:
            pumpThrottle()
            return
        case .end(let outcome):
            end(url, .done(outcome, nil))
            return
        }
        do {
            let handle = try engine.start(request(task)) { [self] result in
                let attempt = conclude(task, result)
                let answer: HostThrottle.Answer
                if case .retry(_, _, _?) = attempt {
                    answer = .pushback
                } else if case .success = result {
                    answer = .answered
                } else {
                    answer = .none
                }
                end(url, attempt, answer: answer)
            }
            let stop: Bool = lock.withLock {
                tasks[url]?.handle = handle
                return tasks[url]?.stopRequested ?? false
            }
            if stop { engine.cancel(handle) }
        } catch {
            end(url, conclude(task, .failure(error)))
        }
    }

    /// The request for one attempt: conditional when the archive has a copy, streamed into a
    /// sink of the cache store (made at the first byte of a 2xx response), hashed and
    /// structure-checked while it streams.
    private func request(_ task: ImageTask) -> HTTPRequest {
        // Staged for the key; the name's extension comes from the body (`conclude`).
        let staging = FileHandle.image(key: task.image.key.hex, extension: "jpg")
        var request = HTTPRequest(url: task.image.url, destination: .sink { [backend] in
            guard let staging else { throw BackendError(.refused, "stage", location: "cache", reason: "not a cache key") }
            return ImageSink(staged: try backend.stage(staging))
        })
        request.maxBytes = settings.maxImageBytes
        // A server may send an image gzip-, deflate- or br-encoded unasked; decode it as a browser
        // does (the cap then counts decoded bytes).
        request.acceptEncoding = true
        // No request into the machine's own network on a feed's word (`AddressPolicy`).
        request.addressPolicy = settings.privateAddresses.imagePolicy
        settings.policy.apply(to: &request)
        if let previous = task.previous {
            if let etag = previous.etag { request.headers.append(HTTPHeader(name: "If-None-Match", value: etag)) }
            if let date = previous.lastModified { request.headers.append(HTTPHeader(name: "If-Modified-Since", value: date)) }
        }
        return request
    }

    /// Seconds since `epoch`, the throttle's clock.
    func clock() -> Double {
        RetryPolicy.seconds(ContinuousClock.now - epoch)
    }

    /// Starts what the host throttle lets start now, and sets a timer for when it lets more.
    func pumpThrottle() {
        let (ready, wakeAt): ([String], Double?) = lock.withLock {
            guard throttle.hasQueued else { return ([], nil) }
            let now = clock()
            let result = throttle.ready(now: now)
            for url in result.keys {
                tasks[url]?.queuedInThrottle = false
                tasks[url]?.admittedAt = now
            }
            guard let wake = result.wakeAt, throttleTimerAt.map({ wake < $0 }) ?? true else { return (result.keys, nil) }
            throttleTimerAt = wake
            return (result.keys, wake)
        }
        for url in ready { startAttempt(url) }
        if let wakeAt {
            let delay = max(0, wakeAt - clock())
            Task { [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9) + 1_000_000)
                guard let self else { return }
                lock.withLock { if throttleTimerAt == wakeAt { throttleTimerAt = nil } }
                pumpThrottle()
            }
        }
    }

    /// The host throttle learns how an admitted attempt ended; reports a slow-down.
    private func releaseThrottle(_ url: String, answer: HostThrottle.Answer, status: Int) {
        // One lock section: release the slot, and see whether anything waits for one (most
        // image ends find nothing queued and take the lock no second time).
        let (slowed, queued): ((host: String, state: HostThrottle.State)?, Bool) = lock.withLock {
            guard let task = tasks[url], let admitted = task.admittedAt else { return (nil, throttle.hasQueued) }
            task.admittedAt = nil
            guard throttle.finished(host: task.image.host, answer: answer, startedAt: admitted, now: clock()) else {
                return (nil, throttle.hasQueued)
            }
            return ((task.image.host, throttle.state(task.image.host)), throttle.hasQueued)
        }
        if let slowed {
            events(.hostSlowed(host: slowed.host, concurrency: slowed.state.concurrency,
                               interval: slowed.state.interval, status: status))
        }
        if queued { pumpThrottle() }
    }

    /// An attempt ended (on the engine's thread, or the caller's): retry after a delay, or hand
    /// the outcome to the committer and let the next task start.
    func end(_ url: String, _ attempt: Attempt, answer: HostThrottle.Answer = .none) {
        var status = 0
        if case .retry(_, _, let pushback?) = attempt { status = pushback.status }
        releaseThrottle(url, answer: answer, status: status)
        switch attempt {
        case .retry(let reason, let retryAfter, let pushback):
            enum Next {
                case wait(number: Int, delay: Double)
                /// No retry: the outcome (`cancelled` for a stopped task, else `failed`).
                case stop(ImageRecord.Outcome)
            }
            var source: String?
            let next: Next = lock.withLock {
                guard let task = tasks[url], !task.stopRequested else { return .stop(cancelledOutcome(nil)) }
                // The source of the first item waiting for the image (two lookups, on retries only).
                source = scheduler.firstSubscriber(running: url).flatMap { items.source(token: $0.token) }
                // A host that pushes back is being slowed down (HostThrottle): the first `retries`
                // such answers an image gets do not count against its retries, as TCP does not
                // give up on a connection after a few losses while it backs off. One that says how
                // long to wait (`Retry-After`) is waited for, and counted.
                if let pushback, pushback.retryAfter == nil, task.forgivenPushbacks < settings.policy.retry.retries {
                    task.forgivenPushbacks += 1
                }
                guard settings.policy.retry.allowsRetry(after: task.attempt - task.forgivenPushbacks) else {
                    return .stop(.init(status: .failed, error: reason))
                }
                let number = task.attempt
                switch settings.policy.retry.decide(beforeRetry: number, retryAfter: retryAfter, jitter: .random(in: 0..<1)) {
                case .wait(let delay):
                    task.attempt += 1
                    return .wait(number: number, delay: delay)
                case .giveUp(let why):
                    return .stop(.init(status: .failed, error: "\(reason): \(why)"))
                }
            }
            guard case .wait(let number, let delay) = next else {
                if case .stop(let outcome) = next { end(url, .done(outcome, nil)) }
                return
            }
            events(.retrying(url: url, attempt: number, delay: delay, reason: reason, source: source))
            let wait = Task { [self] in
                do {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                } catch {
                    end(url, .done(cancelledOutcome(nil), nil))
                    return
                }
                startAttempt(url)
            }
            let stop: Bool = lock.withLock {
                tasks[url]?.retryWait = wait
                tasks[url]?.handle = nil
                return tasks[url]?.stopRequested ?? true
            }
            if stop { wait.cancel() }
        case .done(let outcome, let placement):
            let (starts, rooms, elapsed, owner): ([String], [CheckedContinuation<Void, Never>], Duration?, ImageOwner?) =
                lock.withLock {
                    guard let task = tasks[url], !task.committing else { return ([], [], .zero, nil) }
                    task.subscribers = scheduler.finish(url)?.subscribers ?? []
                    let owner = task.subscribers.first.flatMap {
                        items.owner(token: $0.token, index: $0.image, sharedBy: task.subscribers.count)
                    }
                    task.committing = true
                    task.handle = nil
                    task.retryWait = nil
                    var rooms: [CheckedContinuation<Void, Never>] = []
                    // Wake blocked submitters once the waiting list is half empty, not at every
                    // free slot: they then submit a batch per wake-up.
                    if !roomWaiters.isEmpty && scheduler.waitingCount <= scheduler.limits.maxWaiting / 2 {
                        swap(&rooms, &roomWaiters)
                    }
                    return (startReadyLocked(), rooms, task.startedAt.map { ContinuousClock.now - $0 }, owner)
                }
            if elapsed == .zero {
                // No task wants it any more.
                if case .staged(let staged)? = placement?.save.body { staged.discard() }
                return
            }
            startTransfers(starts)
            for room in rooms { room.resume() }
            if let elapsed {
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                events(.imageFetched(url: url, outcome: outcome, seconds: seconds, owner: owner))
            }
            committer.enqueue(.init(url: url, outcome: outcome, file: placement?.save, replacing: placement?.replacing))
        }
    }
}
