import FeedCrawlSupport

/// Lets one caller through first and holds the others until it is done (`open`), then lets
/// everyone through: the launch details of a run are asked for one at a time until one answer
/// has come, so a server that refuses the query gets it once.
final class FirstAnswerGate: Sendable {
    private struct State {
        var started = false
        var opened = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Waits for the gate; returns true for the one caller that goes first, which must call
    /// `open()` when its answer is in (also when it failed or was cancelled).
    func enter() async -> Bool {
        let first: Bool = state.withLock { state in
            guard !state.started else { return false }
            state.started = true
            return true
        }
        if first { return true }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow: Bool = state.withLock { state in
                if state.opened { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
        return false
    }

    /// Lets every waiting and later caller through.
    func open() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.opened = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
