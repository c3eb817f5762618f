import Foundation

/// Runs blocking work (waiting for a child process, sleeping) on a thread of its own, so a long
/// test does not hold one of the few threads of Swift's cooperative pool (as many as cores)
/// and starve the tests running beside it.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}
