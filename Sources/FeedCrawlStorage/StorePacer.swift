import FeedCrawlHTTP

/// The back-off of one store's uploads, as a `RequestGate` asks it: a `HostThrottle` for the one
/// host, up to `S3Client.uploadsAtOnce` at once. A 503 (`SlowDown`) or 429 halves that and
/// spaces the starts (from 0.02 s, doubling to 30 s: a store takes far more requests a second
/// than an image host); runs of other answers raise it again, as for images. An answer counts as an answer to the oldest request
/// in flight (the gate does not say which one it was), so a push-back to a request started after
/// a decrease may wait for the older ones before it decreases again.
struct StorePacer: RequestPacer {
    private var throttle = HostThrottle(limits: .init(maxConcurrency: S3Client.uploadsAtOnce, initialInterval: 0.02))
    /// When the requests in flight started, oldest first.
    private var starts: [Double] = []

    /// The throttle's concurrency and spacing now.
    var state: HostThrottle.State { throttle.state("") }

    func delayBeforeNextRequest(now: Double) -> Double {
        throttle.delay(host: "", now: now)
    }

    mutating func requestStarted(now: Double) {
        throttle.started(host: "", now: now)
        starts.append(now)
    }

    mutating func requestAbandoned() {
        finished(.none, now: starts.first ?? 0)
    }

    mutating func responseReceived(status: Int, headers: [(name: String, value: String)], now: Double) {
        finished(status == 503 || status == 429 ? .pushback : .answered, now: now)
    }

    private mutating func finished(_ answer: HostThrottle.Answer, now: Double) {
        let startedAt = starts.isEmpty ? now : starts.removeFirst()
        _ = throttle.finished(host: "", answer: answer, startedAt: startedAt, now: now)
    }
}
