extension Crawler {
    /// Runs `body`; if it has not returned after `seconds`, calls `onExpiry` and cancels it, then
    /// waits for what it returns. With `seconds` nil, just runs `body`. Cancelling the calling
    /// task cancels `body` without calling `onExpiry`.
    static func withDeadline<T: Sendable>(
        _ seconds: Double?, onExpiry: @escaping @Sendable () -> Void, _ body: @escaping @Sendable () async -> T
    ) async -> T? {
        guard let seconds else { return await body() }
        return await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                return nil
            }
            var result: T?
            var expired = false
            while let next = await group.next() {
                if let value = next {
                    result = value
                    group.cancelAll()
                } else if result == nil, !expired, !Task.isCancelled {
                    expired = true
                    onExpiry()
                    group.cancelAll()
                }
            }
            return result
        }
    }
}
