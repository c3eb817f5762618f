/// Lets at most two binary-running tests go at once: each runs feedcrawl processes and a feed
/// server, and a dozen at once on a small machine would starve the other suites' timing checks.
actor BinaryTestGate {
    static let shared = BinaryTestGate(width: 2)

    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { self.width = width }

    /// Runs `body` once a slot is free.
    static func run<T>(_ body: () async throws -> T) async rethrows -> T {
        await shared.acquire()
        do {
            let result = try await body()
            await shared.release()
            return result
        } catch {
            await shared.release()
            throw error
        }
    }

    private func acquire() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
