import FeedCrawlHTTP

/// The back-off of one store's saves, as a `RequestGate` asks it: a `HostThrottle` for the one
/// host, up to `connections` at once. A push-back (`PushBack`: 503 `SlowDown`, 429; a backend's
/// `.pushedBack`) halves that and spaces the starts (from 0.02 s, doubling to 2 s: a store takes
/// far more requests a second than an image host, and answers in a millisecond on a near
/// network, so a burst of refusals doubles the spacing many times within one second of the
/// store's limiter; rclone's pacer for S3 stops at 2 s too); runs of other answers raise it
/// again, as for images (from 30 s, that took six minutes of one save at a time). An answer counts as an answer to the oldest request in flight (the gate does not say
/// which one it was), so a push-back to a request started after a decrease may wait for the
/// older ones before it decreases again.
///
/// `PacedBackend` paces a backend's saves with it; the kit's S3 client its uploads.
package struct StorePacer: RequestPacer {
    /// The one host's back-off (the store is one host).
    private var throttle: HostThrottle
    /// When the requests in flight started, oldest first.
    private var starts: [Double] = []

    /// A pacer letting `connections` requests run at once until the store pushes back (at least
    /// 1); the spacing after the first push-back is `initialInterval` seconds (default 0.02), and
    /// doubles up to `maxInterval` (default 2 s; never below `initialInterval`).
    package init(connections: Int, initialInterval: Double = 0.02, maxInterval: Double = 2) {
        throttle = HostThrottle(limits: .init(maxConcurrency: connections, initialInterval: initialInterval, maxInterval: maxInterval))
    }

    /// The longest spacing of starts.
    package var maxInterval: Double { throttle.limits.maxInterval }

    /// The throttle's concurrency and spacing now.
    package var state: HostThrottle.State { throttle.state("") }

    /// The most requests at once (`connections`).
    package var connections: Int { throttle.limits.maxConcurrency }

    /// Whether the store is not being held back: every connection may be used, no spacing (it
    /// never pushed back, or it recovered).
    package var isOpen: Bool { state.concurrency == connections && state.interval == 0 }

    package func delayBeforeNextRequest(now: Double) -> Double {
        throttle.delay(host: "", now: now)
    }

    package mutating func requestStarted(now: Double) {
        throttle.started(host: "", now: now)
        starts.append(now)
    }

    package mutating func requestAbandoned() {
        finished(.none, now: starts.first ?? 0)
    }

    package mutating func responseReceived(status: Int, headers: [(name: String, value: String)], now: Double) {
        finished(PushBack.read(status: status, headers: headers) != nil ? .pushback : .answered, now: now)
    }

    /// A started request ended: `answer` says how (`.none`: it says nothing of the store's rate).
    package mutating func finished(_ answer: HostThrottle.Answer, now: Double) {
        let startedAt = starts.isEmpty ? now : starts.removeFirst()
        _ = throttle.finished(host: "", answer: answer, startedAt: startedAt, now: now)
    }
}
