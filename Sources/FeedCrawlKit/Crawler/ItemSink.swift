import FoundationEssentials

/// Where sources hand their items: each new item is registered in the ledger (a repeated
/// source and id is dropped) and given its outcome at once (no image, unusable, fresh in the
/// cache) or its image is queued, so downloads start as soon as a page is parsed.
struct ItemSink: Sendable {
    let ledger: CrawlLedger
    let queue: PrefetchQueue<ImageOutcome>
    let cached: [String: CachedImage]
    let identity: @Sendable (String) -> String
    let layout: CacheLayout
    let ttl: Double
    /// Reserves manifest room per page; nil (tests) reserves nothing.
    var storage: CrawlStorage? = nil

    /// Registers and schedules `items` of page `page`; returns each item's token, nil for an
    /// item this run already listed. When the output device is full (`CrawlStorage.admit`),
    /// the page is not recorded (every token nil) and the calling source's task is cancelled.
    @discardableResult
    func emit(page: Int, items: [FeedItem]) async -> [Int?] {
        if let storage, !storage.admit(items) {
            withUnsafeCurrentTask { $0?.cancel() }
            return items.map { _ in nil }
        }
        var tokens: [Int?] = []
        tokens.reserveCapacity(items.count)
        for item in items {
            let token = ledger.register(item)
            tokens.append(token)
            guard let token else { continue }
            if let problem = item.problem {
                ledger.resolve([token], with: ImageOutcome(status: .rejected, error: problem))
                continue
            }
            guard let url = item.imageURL, !url.isEmpty else {
                ledger.resolve([token], with: ImageOutcome(status: .noImage))
                continue
            }
            await submit(url: url, subscriber: token, group: item.source, priority: PrefetchPriority(page: page))
        }
        return tokens
    }

    /// Queues a launch's large patch for item `token` at the secondary tier (after previews).
    func emitLargePatch(url: String, token: Int, source: String, page: Int) async {
        await submit(
            url: url, subscriber: token + CrawlLedger.patchTokenBase, group: source,
            priority: PrefetchPriority(tier: .secondary, page: page))
    }

    private func submit(url: String, subscriber: Int, group: String, priority: PrefetchPriority) async {
        if let record = cached[identity(url)], -record.fetchedAt.timeIntervalSinceNow < ttl,
            layout.holds(record)
        {
            ledger.resolve([subscriber], with: record.outcome(.fresh))
            return
        }
        // A URL listed before: reuse its outcome if it has one (else the queue joins the
        // transfer). The queue does not remember finished URLs; the ledger does (`claim`).
        if let earlier = ledger.claim(url: url, token: subscriber), let outcome = ledger.outcome(of: earlier),
            outcome.status != .cancelled
        {
            ledger.resolve([subscriber], with: outcome)
            return
        }
        await queue.submit(
            key: url, host: URLCheck.host(of: url), group: group, priority: priority, subscriber: subscriber)
    }
}
