import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlHTTP
@testable import FeedCrawlStorage

/// The per-host back-off alone: no clock, no network.
@Suite("HostThrottle")
struct HostThrottleTests {
    @Test func anUnthrottledHostStartsUpToItsLimitAtOnce() {
        var t = HostThrottle(limits: .init(maxConcurrency: 3))
        #expect(t.admit("a", host: "h", now: 0) == .go)
        #expect(t.admit("b", host: "h", now: 0) == .go)
        #expect(t.admit("c", host: "h", now: 0) == .go)
        #expect(t.admit("d", host: "h", now: 0) == .queued)
        // Another host is not affected.
        #expect(t.admit("x", host: "other", now: 0) == .go)
        let none = t.ready(now: 0).keys
        #expect(none.isEmpty)
        _ = t.finished(host: "h", answer: .answered, startedAt: 0, now: 1)
        let next = t.ready(now: 1).keys
        #expect(next == ["d"])
    }

    @Test func pushbackHalvesConcurrencyAndSpacesStartsOncePerRoundTrip() {
        var t = HostThrottle(limits: .init(maxConcurrency: 8, initialInterval: 0.25, maxInterval: 30))
        for key in 0..<8 { #expect(t.admit("k\(key)", host: "h", now: 0) == .go) }
        // Eight answers to requests sent at 0: one decrease, not eight.
        #expect(t.finished(host: "h", answer: .pushback, startedAt: 0, now: 0.1) == true)
        for _ in 1..<8 { #expect(t.finished(host: "h", answer: .pushback, startedAt: 0, now: 0.1) == false) }
        #expect(t.state("h") == .init(concurrency: 4, interval: 0.25))
        // Retries queue and start a quarter second apart.
        for key in 0..<3 { #expect(t.admit("r\(key)", host: "h", now: 0.1) == .queued) }
        var (keys, wake) = t.ready(now: 0.1)
        #expect(keys.isEmpty && wake == 0.35)
        (keys, wake) = t.ready(now: 0.35)
        #expect(keys == ["r0"] && wake == 0.6)
        // A pushback to a request sent after the decrease decreases again.
        #expect(t.finished(host: "h", answer: .pushback, startedAt: 0.35, now: 0.4) == true)
        #expect(t.state("h") == .init(concurrency: 2, interval: 0.5))
        #expect(t.finished(host: "h", answer: .pushback, startedAt: 0.5, now: 0.6) == true)
        #expect(t.finished(host: "h", answer: .pushback, startedAt: 0.7, now: 0.8) == true)
        #expect(t.state("h") == .init(concurrency: 1, interval: 2))
        // No answer (a network error) says nothing about the rate.
        #expect(t.finished(host: "h", answer: .none, startedAt: 1, now: 1.1) == false)
        #expect(t.state("h") == .init(concurrency: 1, interval: 2))
    }

    @Test func successesRaiseConcurrencyAndShortenTheIntervalUntilUnthrottled() {
        var t = HostThrottle(limits: .init(maxConcurrency: 4, initialInterval: 0.25, maxInterval: 30))
        #expect(t.admit("a", host: "h", now: 0) == .go)
        #expect(t.finished(host: "h", answer: .pushback, startedAt: 0, now: 0) == true)
        #expect(t.state("h") == .init(concurrency: 2, interval: 0.25))
        var now = 1.0
        var rounds = 0
        while t.state("h") != .init(concurrency: 4, interval: 0) {
            #expect(t.admit("k", host: "h", now: now) == .go)
            _ = t.finished(host: "h", answer: .answered, startedAt: now, now: now + 0.01)
            now += 1
            rounds += 1
            #expect(rounds < 40, "the host never recovered: \(t.state("h"))")
            if rounds >= 40 { break }
        }
        // Additive: one more transfer per run of successes as long as the concurrency.
        #expect(rounds >= 3)
    }

    @Test func theIntervalIsCapped() {
        var t = HostThrottle(limits: .init(maxConcurrency: 2, initialInterval: 1, maxInterval: 4))
        var now = 0.0
        for _ in 0..<10 {
            _ = t.admit("k", host: "h", now: now)
            _ = t.finished(host: "h", answer: .pushback, startedAt: now, now: now)
            now += 10
        }
        #expect(t.state("h") == .init(concurrency: 1, interval: 4))
    }

    @Test func aQueuedKeyCanBeRemoved() {
        var t = HostThrottle(limits: .init(maxConcurrency: 1))
        #expect(t.admit("a", host: "h", now: 0) == .go)
        #expect(t.admit("b", host: "h", now: 0) == .queued)
        #expect(t.admit("c", host: "h", now: 0) == .queued)
        #expect(t.remove("b", host: "h") == true)
        #expect(t.remove("b", host: "h") == false)
        _ = t.finished(host: "h", answer: .answered, startedAt: 0, now: 0)
        let ready = t.ready(now: 0).keys
        #expect(ready == ["c"])
        #expect(!t.hasQueued)
    }

    /// A caller that waits on its own (`StorePacer`) asks `delay` and counts with `started`.
    @Test func delaySaysWhenAnotherTransferMayStartWithoutAKey() {
        var t = HostThrottle(limits: .init(maxConcurrency: 2, initialInterval: 0.25))
        #expect(t.delay(host: "h", now: 0) == 0)
        t.started(host: "h", now: 0)
        t.started(host: "h", now: 0)
        #expect(t.delay(host: "h", now: 0) == .infinity)  // not before one ends
        #expect(t.finished(host: "h", answer: .pushback, startedAt: 0, now: 1) == true)
        #expect(t.state("h") == .init(concurrency: 1, interval: 0.25))
        #expect(t.delay(host: "h", now: 1) == .infinity)  // the other is still in flight
        _ = t.finished(host: "h", answer: .answered, startedAt: 0, now: 1.1)
        #expect(abs(t.delay(host: "h", now: 1.1) - 0.15) < 1e-9)  // the spacing after the pushback
        #expect(t.delay(host: "h", now: 2) == 0)
    }
}
