#if canImport(Glibc)
import Glibc
#endif

extension S3RunLease {
    /// The start of every probe object's name: `.lock-probe-<seconds since 1970>-<16 hex digits>`
    /// (`.lock-probe-<16 hex digits>` before probe names carried their time).
    package static let probePrefix = ".lock-probe-"

    /// Whether the store honours conditional writes, asked with a probe object in `folder`
    /// (`PREFIX/`, a shard's `PREFIX/shards/N/K/`; empty for the bucket's top): first removes
    /// the probes of runs killed between the probe's two PUTs (`removeStaleProbes`, older than
    /// `rule.ttl`), then `honoursConditionalWrites` with the probe
    /// `folder.lock-probe-<now>-<token>`. So a probe is never left behind for good: the next
    /// run that takes a lock in that folder a minute later removes it.
    static func probe(
        client: S3Client, folder: String, token: String, rule: ObjectLease,
        log: @Sendable (String, Bool) -> Void
    ) async throws -> Bool {
        try await removeStaleProbes(client: client, folder: folder, olderThan: rule.ttl, log: log)
        let key = folder + probeName(token: token, seconds: Int64(time(nil)))
        return try await honoursConditionalWrites(client: client, probeKey: key)
    }

    /// `.lock-probe-<seconds>-<token>`.
    package static func probeName(token: String, seconds: Int64) -> String {
        probePrefix + String(seconds) + "-" + token
    }

    /// The time (seconds since 1970, the writer's clock) a probe's name carries, or nil when it
    /// carries none.
    static func probeTime(_ name: String) -> Int64? {
        guard name.hasPrefix(probePrefix) else { return nil }
        let rest = name.dropFirst(probePrefix.count)
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return Int64(rest[..<dash])
    }

    /// Removes the probe objects directly in `folder` that are `age` seconds old or older: by
    /// the store's clock (its `Date` answer minus the object's `Last-Modified`, as lease expiry
    /// is judged, so clocks that disagree do not matter), or, where the store sends no `Date`,
    /// by the time in the probe's name on this machine's clock. A younger probe is a live run's
    /// and is left alone. `log` hears each one removed (`detail` true).
    ///
    /// - Returns: how many were removed.
    @discardableResult
    package static func removeStaleProbes(
        client: S3Client, folder: String, olderThan age: Double, log: @Sendable (String, Bool) -> Void = { _, _ in }
    ) async throws -> Int {
        var found: [S3ListedObject] = []
        try await client.listAll(prefix: folder + probePrefix) { found.append($0) }
        var removed = 0
        for object in found {
            let name = String(object.key.utf8.dropFirst(folder.utf8.count)) ?? ""
            guard !name.contains("/"), let info = try await client.head(key: object.key) else { continue }
            let idle: Int64
            if let now = info.storeDate.flatMap(ObjectLease.httpDate),
               let modified = info.lastModified.flatMap(ObjectLease.httpDate) {
                idle = now - modified
            } else if let made = probeTime(name) {
                idle = Int64(time(nil)) - made
            } else {
                continue
            }
            guard Double(idle) >= age else { continue }
            try await client.delete(key: object.key)
            log("removed the lock probe \(name) that a run left \(idle) s ago", true)
            removed += 1
        }
        return removed
    }
}
