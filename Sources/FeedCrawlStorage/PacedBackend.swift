import FeedCrawlHTTP
import FeedCrawlSupport

/// Saves at the pace the store takes (restic's `limiter`, driven by the store's answers instead of
/// a fixed rate): every save attempt passes a `RequestGate` whose `StorePacer` (a `HostThrottle`)
/// lets `properties.connections` run at once. A save the store pushed back (`.pushedBack`: 503
/// `SlowDown`, 429, read by the one rule, `PushBack`) halves that and spaces the starts; runs of
/// saves that went through raise them again. Reads (`load`, `stat`, `list`), `remove` and `lock`
/// are not paced.
///
/// `saveAll`: while the store has not pushed back (the pacer is open: every connection, no
/// spacing) the batch goes to the base whole (a folder saves it in one hop, an object store
/// `connections` at once: what the gate would let through anyway), counted in the pacer as
/// `connections` saves in flight, and every answer tells the pacer how the store kept up. Once it
/// pushed back, each item passes the gate alone, so the store gets fewer saves at once, spaced,
/// until it recovers.
///
/// In `Backends.wrapped` it sits inside the retries: `Retrying(Paced(Deadline(store)))`, so each
/// retry attempt passes the gate again.
final class PacedBackend: BackendWrapper {
    /// The backend wrapped.
    let base: any Backend
    /// The gate every save passes (its pacer's state shows how the store is being paced).
    let gate: RequestGate<StorePacer>

    /// `base` with its saves paced: up to `base.properties.connections` at once until it pushes
    /// back; after a push-back starts are spaced from `initialInterval` seconds (default 0.02),
    /// doubling to 2 s (`StorePacer`). `clock` (monotonic seconds; default the continuous clock) is the gate's.
    init(_ base: any Backend, initialInterval: Double = 0.02, clock: (@Sendable () -> Double)? = nil) {
        self.base = base
        gate = RequestGate(pacer: StorePacer(connections: base.properties.connections, initialInterval: initialInterval), clock: clock)
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        do {
            try await enter(handle)
        } catch {
            // Not saved, and not transient: the body is consumed (`Backend.save`).
            staged.discard()
            throw error
        }
        try await paced { () async throws(BackendError) in try await base.save(handle, staged: staged, options: options) }
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        try await enter(handle)
        try await paced { () async throws(BackendError) in try await base.save(handle, bytes: bytes, options: options) }
    }

    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        guard !batch.isEmpty else { return [] }
        // Whole, while the store keeps up and nobody waits at the gate.
        let slots: Int? = gate.isQueueEmpty ? gate.update { pacer, now -> Int? in
            guard pacer.isOpen else { return nil }
            let slots = min(batch.count, pacer.connections)
            for _ in 0..<slots { pacer.requestStarted(now: now) }
            return slots
        } : nil
        if let slots {
            let errors = await base.saveAll(batch)
            gate.update { pacer, now in
                for (index, error) in errors.enumerated() {
                    if index >= slots { pacer.requestStarted(now: now) }
                    pacer.finished(Self.answer(error), now: now)
                }
            }
            return errors
        }
        // One at a time through the gate, as many at once as it lets through.
        let width = max(1, base.properties.connections)
        var errors = [BackendError?](repeating: nil, count: batch.count)
        let results: [(Int, BackendError?)] = await withTaskGroup(of: (Int, BackendError?).self) { group in
            var results: [(Int, BackendError?)] = []
            var next = 0
            var running = 0
            while true {
                while next < batch.count, running < width {
                    let index = next
                    next += 1
                    running += 1
                    group.addTask { [self] in
                        do throws(BackendError) {
                            try await save(batch[index])
                            return (index, nil)
                        } catch {
                            return (index, error)
                        }
                    }
                }
                guard let result = await group.next() else { break }
                running -= 1
                results.append(result)
            }
            return results
        }
        for (index, error) in results { errors[index] = error }
        return errors
    }

    // MARK: The gate

    /// Waits for the gate to let one more save start; `.cancelled` when the task is cancelled
    /// meanwhile.
    private func enter(_ handle: FileHandle) async throws(BackendError) {
        do {
            try await gate.acquire(source: "")
        } catch {
            throw BackendError(.cancelled, "save", location: base.location(handle), reason: "cancelled while waiting for the store's pace")
        }
    }

    /// Runs a save that passed the gate, and tells the pacer how it ended.
    private func paced(_ save: () async throws(BackendError) -> Void) async throws(BackendError) {
        do {
            try await save()
        } catch {
            let answer = Self.answer(error)
            gate.update { pacer, now in pacer.finished(answer, now: now) }
            throw error
        }
        gate.update { pacer, now in pacer.finished(.answered, now: now) }
    }

    /// How a save's outcome counts for the pacer: a push-back slows it; a save that went through,
    /// or an answer that refused it, says the store kept up; no answer (a lost connection, a
    /// cancelled save) says nothing.
    static func answer(_ error: BackendError?) -> HostThrottle.Answer {
        guard let error else { return .answered }
        switch error.kind {
        case .pushedBack: return .pushback
        case .transient, .cancelled: return .none
        case .notFound, .full, .refused, .lockHeld: return .answered
        }
    }
}
