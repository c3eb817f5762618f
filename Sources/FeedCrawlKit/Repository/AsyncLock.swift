import FeedCrawlSupport
/// Mutual exclusion for async code: one holder at a time, waiters let in in the order they
/// came, none of them blocking a thread while it waits.
final class AsyncLock: @unchecked Sendable {
    private let mutex = Lock()
    // Guarded by `mutex`.
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init() {}

    /// Waits until the lock is free, then holds it.
    func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = mutex.withLock {
                if held {
                    waiters.append(continuation)
                    return false
                }
                held = true
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the next waiter in, or frees the lock.
    func unlock() {
        let next: CheckedContinuation<Void, Never>? = mutex.withLock {
            if waiters.isEmpty {
                held = false
                return nil
            }
            return waiters.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding the lock.
    func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }
}
