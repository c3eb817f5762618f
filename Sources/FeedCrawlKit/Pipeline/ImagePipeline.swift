import FeedCrawlStorage
import FoundationEssentials
import FeedCrawlSupport
import FeedCrawlHTTP

/// The one component an image passes through from the moment its item is listed until its
/// outcome is recorded with the item.
///
/// - Intake (`submit`): each listed item waits as a `PendingItems` entry; each of its images is
///   resolved at once when it can be (a refused URL, a URL this run already has an outcome for,
///   a copy in the archive younger than the TTL) or subscribes to the one task of its URL
///   (`PrefetchScheduler`: one entry per URL, priority, limits, back-pressure).
/// - Transfers (`ImagePipeline+Transfers`): conditional requests when the archive has a copy,
///   bodies streamed by the HTTP engine into a body the backend staged (`Backend.stage`, in an
///   `ImageSink`: written, hashed, structure-checked), validated, retried with the feeds'
///   `RetryPolicy` (backoff, jitter, `Retry-After`).
/// - Commit (`ImageCommitter`): `Backend.saveAll` off the engine's thread, then delivery to
///   every subscriber; an item whose images are all done is recorded with its page
///   (`PageRecorder`), which journals each page once its items are all done.
/// - Cancellation: one source (its subscribers leave every task; a URL's task that no one else
///   wants is stopped: cancel on last unsubscribe), or everything (a signal, `--deadline`).
///
/// Thread-safe: sources call in from their tasks, the engine's thread reports transfers, the
/// committer's thread delivers.
final class ImagePipeline: @unchecked Sendable {
    /// Fixed settings of one run's pipeline.
    struct Settings: Sendable {
        var limits = PrefetchScheduler.Limits()
        /// Retries and the limits of each attempt (the run's one `RequestPolicy`).
        var policy = RequestPolicy()
        var maxImageBytes: Int64 = 20 << 20
        /// An archived copy younger than this is `fresh` and not requested.
        var ttlSeconds: Double = 24 * 3600
        /// The text an image URL is cached under (see `CrawlConfiguration.cacheIdentity`).
        var identity: @Sendable (String) -> String = { $0 }
        /// Whether images may come from loopback and private addresses (link-local: never);
        /// default closed.
        var privateAddresses = PrivateAddressScope()
    }

    let engine: HTTPEngine
    /// Where the images go: every cache file is staged and saved through it.
    let backend: any Backend
    let settings: Settings
    /// What earlier runs stored (nil: nothing).
    let archive: Repository?
    let recorder: PageRecorder
    /// Where the keys of each page's images are saved before they are fetched.
    let intents: RunIntents
    let storage: CrawlStorage?
    let events: @Sendable (CrawlEvent) -> Void
    private(set) var committer: ImageCommitter!

    let lock = Lock()
    /// The throttle's clock starts here.
    let epoch = ContinuousClock.now
    // Guarded by `lock`.
    var scheduler: PrefetchScheduler
    /// Per-host back-off for hosts that push back (`PushBack`: 429 or 503).
    var throttle: HostThrottle
    /// When the throttle timer fires next (seconds since `epoch`), if one is set.
    var throttleTimerAt: Double?
    /// Every URL waiting, running or committing, with what its task needs.
    var tasks: [String: ImageTask] = [:]
    var items = PendingItems()
    /// URLs this run finished (fetched, revalidated or failed), by cache key: where the outcome is.
    var finished = FinishedURLs()
    /// Complete items being journaled (`recordCompleted`), by token, and their order: taken from
    /// `items` under the lock, encoded and appended outside it.
    var recording: [Int: PendingItems.Pending] = [:]
    var recordQueue: [Int] = []
    var cancelledGroups: Set<Int> = []
    /// Pages dropped because the output device had no room for their records (`submit`), by
    /// group: their numbers.
    var droppedPages: [Int: [Int]] = [:]
    /// Set by `cancelAll`: why everything stopped (e.g. `cancelled: deadline reached`).
    var stopReason: String?
    var roomWaiters: [CheckedContinuation<Void, Never>] = []
    /// Submitters waiting for a URL's stopped task to end, by URL.
    var urlWaiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    var maxWaitingSeen = 0
    /// Bytes downloaded this run (each URL once).
    var downloaded: Int64 = 0

    init(
        engine: HTTPEngine, backend: any Backend, settings: Settings, archive: Repository?,
        recorder: PageRecorder, intents: RunIntents, storage: CrawlStorage?,
        events: @escaping @Sendable (CrawlEvent) -> Void
    ) {
        self.engine = engine
        self.backend = backend
        self.settings = settings
        self.archive = archive
        self.recorder = recorder
        self.intents = intents
        self.storage = storage
        self.events = events
        scheduler = PrefetchScheduler(limits: settings.limits)
        throttle = HostThrottle(limits: .init(maxConcurrency: settings.limits.perHost))
        committer = ImageCommitter(
            backend: backend, maxQueuedFiles: backend.properties.maxWaitingStaged,
            deliver: { [unowned self] outcomes in deliver(outcomes) },
            flush: { [unowned recorder] force in await recorder.flush(force: force) },
            noteWriteFailure: { [weak storage] error in storage?.noteWriteFailure(error) })
    }

    /// The pages of `group` dropped because the output device was full: not recorded, so
    /// their items are in neither this run's counts nor the archive.
    func droppedPages(group: Int) -> [Int] { lock.withLock { droppedPages[group] ?? [] } }

    /// The most image requests that ever waited at once.
    var peakWaiting: Int { lock.withLock { maxWaitingSeen } }

    /// Bytes downloaded into the cache this run, each URL counted once.
    var downloadedBytes: Int64 { lock.withLock { downloaded } }

    // MARK: Intake

    /// Registers the items of one feed page (`group`: the source's index; `listing`: the page as
    /// its group records it) and schedules their images; waits while the queue is full. Returns
    /// each item's token. With `awaitingDetails` an item is recorded only after `setDetails`
    /// (launch details). When the output device is full (`CrawlStorage.admit`) the page is
    /// dropped (every token nil, its number kept for `droppedPages(group:)`) and the calling
    /// task is cancelled.
    @discardableResult
    func submit(_ page: [FeedItem], group: Int, listing: PageListing, awaitingDetails: Bool = false) async -> [Int?] {
        if let storage, !storage.admit(page) {
            lock.withLock { droppedPages[group, default: []].append(listing.page) }
            withUnsafeCurrentTask { $0?.cancel() }
            return page.map { _ in nil }
        }
        // Each image's URL checked and keyed once; the keys to fetch are the run's intent,
        // saved before any of them is staged (`RunIntents`: what a killed run's next run sweeps).
        var checked = page.map { item in item.problem == nil ? item.images.map(check) : [] }
        let keys = checked.flatMap { $0.compactMap { if case .fetch(let image) = $0 { image.key.prefix } else { nil } } }
        do {
            try await intents.declare(keys)
        } catch {
            storage?.noteWriteFailure(error)
            // Stopped meanwhile (a signal, `--deadline`): cancelled, as what was not started.
            let outcome: ImageRecord.Outcome = error.kind == .cancelled
                ? .init(status: .cancelled, error: lock.withLock { stopReason } ?? "cancelled")
                : .init(status: .failed, error: "not fetched: \(error)")
            checked = checked.map { $0.map { if case .fetch = $0 { .resolve(outcome) } else { $0 } } }
        }
        let pageToken = recorder.open(listing, items: page.count)
        defer { recorder.close(pageToken) }
        var tokens: [Int?] = []
        tokens.reserveCapacity(page.count)
        for (item, images) in zip(page, checked) {
            let token = lock.withLock {
                items.add(item, page: pageToken, awaitingDetails: awaitingDetails, seen: recorder.runStarted)
            }
            tokens.append(token)
            if let problem = item.problem {
                lock.withLock {
                    items.setError(problem, token: token)
                    completeLocked(token)
                }
                recordCompleted()
                continue
            }
            for (index, image) in images.enumerated() {
                await subscribe(image, token: token, index: index, group: group, page: item.page)
            }
            lock.withLock { completeLocked(token) }
            recordCompleted()
        }
        return tokens
    }

    /// Gives a pending item its launch details; it is recorded once its images are done too.
    func setDetails(_ details: LaunchDetails, token: Int) {
        lock.withLock {
            items.setDetails(details, token: token)
            completeLocked(token)
        }
        recordCompleted()
    }

    /// An image as intake sees it: a URL to fetch (checked, its cache key and host computed), or
    /// an outcome reached without a request.
    enum Checked {
        case fetch(ImageURL)
        case resolve(ImageRecord.Outcome)
    }

    /// Intake: the image's URL checked, and its cache key and host computed, once; resolved
    /// when the feed failed it or its URL cannot be fetched.
    private func check(_ image: FeedImage) -> Checked {
        if let failure = image.failure { return .resolve(.init(status: .failed, error: failure)) }
        if let problem = image.problem ?? URLCheck.problem(image.url) { return .resolve(.init(status: .rejected, error: problem)) }
        // Cached under the URL as recorded: without its `user:password@`.
        let key = CacheKey(identity: settings.identity(URLCheck.removingUserInfo(image.url)))
        return .fetch(ImageURL(url: image.url, key: key, host: URLCheck.host(of: image.url)))
    }

    /// Resolves one image now, or subscribes it to its URL's task (waiting for room).
    private func subscribe(_ checked: Checked, token: Int, index: Int, group: Int, page: Int) async {
        let subscriber = PrefetchScheduler.Subscriber(token: token, image: index, group: group)
        let image: ImageURL
        switch checked {
        case .fetch(let url):
            image = url
        case .resolve(let outcome):
            lock.withLock { resolveLocked(subscriber, outcome) }
            return
        }
        // What the archive holds for the URL, and whether the store still holds its file with
        // its recorded size, asked outside the lock.
        let archived = try? await archive?.archivedImage(image.key)
        var held = false
        if let archived, let file = archived.file.flatMap(FileHandle.image(file:)),
           let info = try? await backend.stat(file) {
            held = archived.bytes.map { $0 == info.size } ?? true
        }
        let priority = PrefetchPriority(tier: index, page: page)
        var earlier: FinishedURLs.Recorded?
        while true {
            let step: SubmitStep = lock.withLock {
                joinOrResolveLocked(image, archived: archived, held: held, earlier: earlier, subscriber: subscriber,
                                    priority: priority)
            }
            switch step {
            case .done: return
            case .readFinished(let place):
                // This run recorded the URL's outcome with a page already journaled: read it back.
                earlier = FinishedURLs.Recorded(place: place, image: await recorder.recordedImage(place))
                continue
            case .start(let requests): startTransfers(requests); return
            case .wait, .waitForURL:
                // Until the queue has room, or the URL's stopped task has ended; then look again.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow: Bool = lock.withLock {
                        if stopReason != nil { return true }
                        if case .wait = step {
                            if scheduler.hasRoom { return true }
                            roomWaiters.append(continuation)
                        } else {
                            if tasks[image.url]?.stopRequested != true { return true }
                            urlWaiters[image.url, default: []].append(continuation)
                        }
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    enum SubmitStep {
        case done
        /// This run's outcome for the URL is in a journaled page: read it (outside the lock).
        case readFinished(FinishedURLs.Place)
        /// The queue is full.
        case wait
        /// The URL's task is being stopped (no one wanted it any more).
        case waitForURL
        /// The URLs whose tasks the limits let start.
        case start([String])
    }

    /// The one place a URL's work is shared: a task in flight is joined; a URL this run finished
    /// gives its outcome; a fresh archived copy is reused; else a new task is queued (when the
    /// queue has room). A task being stopped is not joined (it would end `cancelled`): the
    /// submitter waits for it to end, then looks again.
    private func joinOrResolveLocked(
        _ image: ImageURL, archived: ImageRecord?, held: Bool, earlier: FinishedURLs.Recorded?,
        subscriber: PrefetchScheduler.Subscriber, priority: PrefetchPriority
    ) -> SubmitStep {
        if cancelledGroups.contains(subscriber.group) || stopReason != nil {
            resolveLocked(subscriber, cancelledOutcome(archived?.outcome))
            return .done
        }
        if let task = tasks[image.url] {
            if task.stopRequested { return .waitForURL }
            if task.committing {
                task.subscribers.append(subscriber)
            } else {
                _ = scheduler.submit(key: image.url, host: image.host, priority: priority, subscriber: subscriber)
            }
            return .done
        }
        switch finishedLocked(image, earlier: earlier) {
        case .outcome(let outcome):
            resolveLocked(subscriber, outcome)
            return .done
        case .read(let place):
            return .readFinished(place)
        case .none:
            break
        }
        if held, let archived, let outcome = freshOutcome(archived) {
            resolveLocked(subscriber, outcome)
            return .done
        }
        if let error = storage?.itemError {
            resolveLocked(subscriber, ImageRecord.Outcome(status: .failed, error: error).keeping(archived?.outcome))
            return .done
        }
        guard scheduler.hasRoom else { return .wait }
        // A copy the cache no longer holds (removed by `manifest --verify --repair`, or lost) is
        // fetched whole: a conditional request would have it `revalidated` without a file.
        tasks[image.url] = ImageTask(image, previous: held ? archived?.outcome : nil)
        _ = scheduler.submit(key: image.url, host: image.host, priority: priority, subscriber: subscriber)
        maxWaitingSeen = max(maxWaitingSeen, scheduler.waitingCount)
        return .start(startReadyLocked())
    }

    /// The archived copy (whose file the cache holds) as a `fresh` outcome when it is younger
    /// than the TTL.
    private func freshOutcome(_ archived: ImageRecord) -> ImageRecord.Outcome? {
        guard let fetchedAt = archived.fetchedAt, -fetchedAt.timeIntervalSinceNow < settings.ttlSeconds else { return nil }
        var outcome = archived.outcome
        outcome.status = .fresh
        outcome.error = nil
        return outcome
    }

    /// A `cancelled` outcome that keeps the archived copy.
    func cancelledOutcome(_ previous: ImageRecord.Outcome?) -> ImageRecord.Outcome {
        ImageRecord.Outcome(status: .cancelled, error: stopReason ?? "cancelled").keeping(previous)
    }
}
