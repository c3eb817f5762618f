import FeedCrawlStorage
import FoundationEssentials

/// The page cache: feed pages kept for reuse (`--page-ttl`) as `FeedExchange` files,
/// `OUT/pages/<source>/<hash of the request>.json`, through the archive's backend, so a run on
/// object storage keeps them in the bucket as a run on disk keeps them in OUT. A file that
/// cannot be read back is treated as absent; a lost one is fetched again (saved without a sync).
struct KeptPages: Sendable {
    let backend: any Backend
    /// Largest file read back (`FeedExchangeStore.maxFileBytes(pageBytes:)`).
    var maxFileBytes: Int

    /// The name of the exchange for `request` of `source`.
    static func handle(source: String, request: FeedRequestIdentity) -> FileHandle? {
        FileHandle(.page, source + "/" + request.hash + ".json")
    }

    /// The kept exchange for `request`, or nil (none, unreadable, or stored for another request).
    func load(source: String, request: FeedRequestIdentity) async -> FeedExchange? {
        guard let handle = Self.handle(source: source, request: request),
              let bytes = try? await backend.load(handle, range: nil, maxBytes: Int64(maxFileBytes)),
              let exchange = try? FeedExchange.decode(bytes), exchange.request == request else { return nil }
        return exchange
    }

    /// Keeps `exchange` (atomically, not synced).
    func save(_ exchange: FeedExchange) async throws {
        guard let handle = Self.handle(source: exchange.source, request: exchange.request) else { return }
        try await backend.save(handle, bytes: try exchange.encoded(), options: SaveOptions(durable: false))
    }

    /// Removes the kept pages of every source but `sources` (those of a source removed from, or
    /// renamed in, the configuration: nothing will read them again), staged leftovers
    /// included: one listing of `OUT/pages/`. Returns how many were removed.
    @discardableResult
    func prune(keeping sources: Set<String>) async -> Int {
        var doomed: [FileHandle] = []
        try? await backend.list(.page, prefix: "") { page in
            for info in page {
                let source = info.handle.name.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
                if !sources.contains(source) { doomed.append(info.handle) }
            }
        }
        var removed = 0
        for handle in doomed where (try? await backend.remove(handle)) != nil { removed += 1 }
        return removed
    }

    /// Removes `source`'s kept pages written more than `seconds` ago (all of them when
    /// `seconds <= 0`) and staged leftovers. Returns how many were removed.
    @discardableResult
    func prune(source: String, olderThan seconds: Double, now: Date = Date()) async -> Int {
        let limit = now.timeIntervalSince1970 - max(seconds, 0)
        var doomed: [FileHandle] = []
        var undated: [FileHandle] = []
        try? await backend.list(.page, prefix: source + "/") { page in
            for info in page {
                if info.handle.isPartial || seconds <= 0 {
                    doomed.append(info.handle)
                } else if let written = info.modified {
                    if written < limit { doomed.append(info.handle) }
                } else {
                    undated.append(info.handle)
                }
            }
        }
        for handle in undated {
            if let written = try? await backend.stat(handle)?.modified, written < limit { doomed.append(handle) }
        }
        var removed = 0
        for handle in doomed where (try? await backend.remove(handle)) != nil { removed += 1 }
        return removed
    }
}
