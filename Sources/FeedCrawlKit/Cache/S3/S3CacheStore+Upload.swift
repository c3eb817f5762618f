import Glibc

extension S3CacheStore {
    /// One spooled body to upload (`commitAll`).
    struct Upload: Sendable {
        var index: Int
        var key: String
        var file: String
        var sha256: [UInt8]
        var contentType: String
    }

    /// Uploads `work` as the store lets it: `throttle` (a `HostThrottle` for the store, kept
    /// across batches) starts `uploadsAtOnce` at once; each `SlowDown` or 503 halves that and
    /// spaces the starts (from 0.25 s, doubling to 30 s), runs of successes raise it again, as
    /// images from a host that pushes back. An upload pushed back is queued again as often as
    /// the run's `RequestPolicy` retries (`--retries`, as an image pushed back is; each try is
    /// itself retried by the client). Returns the failures (index, what the store said).
    func upload(_ work: [Upload]) async -> [(Int, String)] {
        let client = self.client
        let pushbackRetries = client.configuration.policy.retry.retries
        return await withTaskGroup(of: (Int, (any Error)?).self) { group in
            var failed: [(Int, String)] = []
            var inFlight = 0
            var waiting = 0
            var sleeping = false
            var pushbacks = [Int](repeating: 0, count: work.count)
            var startedAt = [Double](repeating: 0, count: work.count)
            var done = [Bool](repeating: false, count: work.count)
            func launch(_ position: Int) {
                let upload = work[position]
                startedAt[position] = Self.now()
                inFlight += 1
                group.addTask {
                    do {
                        try await client.put(key: upload.key, file: upload.file, sha256: upload.sha256,
                                             contentType: upload.contentType, cacheControl: Self.cacheControl)
                        return (position, nil)
                    } catch {
                        return (position, error)
                    }
                }
            }
            func admit(_ position: Int) {
                let admission = throttle.withLock { $0.admit(String(position), host: Self.throttleHost, now: Self.now()) }
                if admission == .go { launch(position) } else { waiting += 1 }
            }
            func startReady() {
                let (keys, wakeAt) = throttle.withLock { $0.ready(now: Self.now()) }
                for key in keys {
                    waiting -= 1
                    launch(Int(key)!)
                }
                if waiting > 0, !sleeping, let wakeAt {
                    sleeping = true
                    group.addTask {
                        try? await Task.sleep(for: .milliseconds(Int(max(0, wakeAt - Self.now()) * 1000) + 1))
                        return (-1, nil)
                    }
                }
            }
            for position in work.indices { admit(position) }
            startReady()
            while inFlight > 0 || waiting > 0 {
                guard let (position, error) = await group.next() else { break }
                if position < 0 {
                    sleeping = false
                    startReady()
                    continue
                }
                inFlight -= 1
                let pushback = (error as? S3Error).map { $0.code == .slowDown || $0.status == 503 } ?? false
                let answer: HostThrottle.Answer = pushback ? .pushback : (error == nil || error is S3Error ? .answered : .none)
                throttle.withLock {
                    _ = $0.finished(host: Self.throttleHost, answer: answer, startedAt: startedAt[position], now: Self.now())
                }
                if error != nil, pushback, pushbacks[position] < pushbackRetries {
                    pushbacks[position] += 1
                    admit(position)
                } else {
                    done[position] = true
                    if let error { failed.append((work[position].index, Self.reason(error))) }
                }
                startReady()
            }
            group.cancelAll()  // a sleeper left
            // Never reached in practice; but an upload never run is not a stored one.
            for position in work.indices where !done[position] {
                throttle.withLock { _ = $0.remove(String(position), host: Self.throttleHost) }
                failed.append((work[position].index, "the upload was not run"))
            }
            return failed
        }
    }

    /// The one host key of `throttle`.
    private static let throttleHost = "store"

    /// A monotonic clock in seconds.
    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
