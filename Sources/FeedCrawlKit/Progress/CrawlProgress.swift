import FeedCrawlSupport
import FeedCrawlHTTP

/// Live counters of a crawl, fed with `CrawlEvent`s from many tasks at once. Recording is cheap
/// (one lock, a few integer additions, no allocation for known sources) so it can sit on the
/// image path; rendering reads a `snapshot()` on its own schedule.
public final class CrawlProgress: @unchecked Sendable {
    private let lock = Lock()
    private var state: ProgressSnapshot
    private let started: ContinuousClock.Instant

    /// - Parameters:
    ///   - sources: the configured sources and the pages each may fetch, in display order.
    ///   - started: when the crawl started; default now.
    public init(sources: [(name: String, pages: Int)], started: ContinuousClock.Instant = .now) {
        state = ProgressSnapshot(sources: sources.map { ProgressSnapshot.Source(name: $0.name, pagesPlanned: $0.pages) })
        self.started = started
    }

    /// Counts one event.
    public func record(_ event: CrawlEvent) {
        lock.withLock {
            switch event {
            case .pageFetched(let source, _, let items):
                let index = indexLocked(source)
                state.sources[index].pagesFetched += 1
                state.sources[index].listed += items
            case .itemFinished(let source, let status):
                state.sources[indexLocked(source)].counts[status, default: 0] += 1
            case .imageFetched(_, let outcome, _, _):
                state.transfers += 1
                state.bytes += outcome.status == .downloaded ? outcome.bytes ?? 0 : 0
            case .retrying: state.retries += 1
            case .warning, .hostSlowed: state.warnings += 1
            case .storage: break
            case .sourceFailed(let source, _): state.sources[indexLocked(source)].failed = true
            }
        }
    }

    /// The counters now, with `elapsed` measured to `now` (default: the current time).
    public func snapshot(now: ContinuousClock.Instant = .now) -> ProgressSnapshot {
        var copy = lock.withLock { state }
        copy.elapsed = RetryPolicy.seconds(now - started)
        return copy
    }

    private func indexLocked(_ name: String) -> Int {
        if let index = state.sources.firstIndex(where: { $0.name == name }) { return index }
        state.sources.append(ProgressSnapshot.Source(name: name, pagesPlanned: 0))
        return state.sources.count - 1
    }
}
