import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The run lock of an OUT on object storage: a lease object (`PREFIX/.lock`, or a shard's own
/// key) that `ObjectLease` decides about and this type reads and writes.
///
/// - Taken with `If-None-Match: *`: of two runs starting at once the store lets one create it.
/// - Renewed with `If-Match: <etag>` every `ObjectLease.renewInterval` while the run lives; a
///   renewal the store refuses (412: another run took the lease over) or renewals failing for
///   `ObjectLease.giveUpAfter` end the holding (`onLost`), and the run must stop writing.
/// - A lease not renewed for `ObjectLease.ttl` (the store's `Date` minus its `Last-Modified`)
///   is taken over with `If-Match` on its ETag, so a killed run blocks the next one for at most
///   `ttl` (default 60 s).
/// - `release()` deletes it when it is still this run's.
///
/// The body is informational (`host pid N run STARTED`), shown when another run holds it.
public final class S3RunLease: @unchecked Sendable {
    /// Why the lease could not be taken or was lost.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Another run holds it: what its body says, and when it expires unless renewed.
        case held(holder: String, expiresIn: Int64)
        /// The store refused or failed (what it said).
        case store(S3Error)

        public var description: String {
            switch self {
            case .held(let holder, let expiresIn):
                let who = holder.isEmpty ? "another run" : "another run (\(holder))"
                return "\(who) is using this output (its lease expires in \(expiresIn) s unless renewed)"
            case .store(let error):
                return "cannot take the run lease: \(error)"
            }
        }
    }

    /// The lease object's key (with the prefix).
    public let key: String
    /// What the object says about its holder.
    public let holder: String
    private let client: S3Client
    private let rule: ObjectLease
    private let lock = Lock()
    // Guarded by `lock`.
    private var holding: ObjectLease.Holding?
    private var renewer: Task<Void, Never>?

    private init(client: S3Client, key: String, holder: String, rule: ObjectLease, etag: String) {
        self.client = client
        self.key = key
        self.holder = holder
        self.rule = rule
        holding = ObjectLease.Holding(etag: etag, at: Self.now())
    }

    /// Takes the lease `key`, or throws `Failure.held` when a live run holds it.
    public static func acquire(
        client: S3Client, key: String, holder: String, rule: ObjectLease = ObjectLease()
    ) async throws(Failure) -> S3RunLease {
        let body = Array((holder + "\n").utf8)
        // Two rounds: a lease that vanished between the refused create and the HEAD is created
        // again; anything racing beyond that is another run.
        for _ in 0..<2 {
            do {
                let etag = try await client.put(key: key, bytes: body, contentType: "text/plain", condition: .ifNoneMatch)
                return S3RunLease(client: client, key: key, holder: holder, rule: rule, etag: etag)
            } catch let error as S3Error where error.code == .preconditionFailed {
                // Held, or stale: look at it.
            } catch let error as S3Error {
                throw .store(error)
            } catch {
                throw .store(S3Error(operation: "PUT", key: key, message: "\(error)"))
            }
            let info: S3ObjectInfo?
            do {
                info = try await client.head(key: key)
            } catch let error as S3Error {
                throw .store(error)
            } catch {
                throw .store(S3Error(operation: "HEAD", key: key, message: "\(error)"))
            }
            guard let info, let etag = info.etag else { continue }
            let modified = info.lastModified.flatMap(ObjectLease.httpDate) ?? 0
            let storeNow = info.storeDate.flatMap(ObjectLease.httpDate) ?? modified
            switch rule.step(.present(etag: etag, lastModified: modified, storeNow: storeNow)) {
            case .create:
                continue
            case .held(let expiresIn):
                throw .held(holder: await currentHolder(client: client, key: key), expiresIn: expiresIn)
            case .takeOver(let stale, _):
                do {
                    let etag = try await client.put(key: key, bytes: body, contentType: "text/plain", condition: .ifMatch(stale))
                    return S3RunLease(client: client, key: key, holder: holder, rule: rule, etag: etag)
                } catch let error as S3Error where error.code == .preconditionFailed {
                    // Another run took it over first.
                    throw .held(holder: await currentHolder(client: client, key: key), expiresIn: Int64(rule.ttl))
                } catch let error as S3Error {
                    throw .store(error)
                } catch {
                    throw .store(S3Error(operation: "PUT", key: key, message: "\(error)"))
                }
            }
        }
        throw .held(holder: await currentHolder(client: client, key: key), expiresIn: Int64(rule.ttl))
    }

    /// The lease's body, trimmed (empty when it cannot be read).
    private static func currentHolder(client: S3Client, key: String) async -> String {
        guard let bytes = try? await client.get(key: key, maxBytes: 4096) else { return "" }
        return String(String(decoding: bytes, as: UTF8.self).trimmingASCIIWhitespace())
    }

    /// Whether this run still holds the lease.
    public var isHeld: Bool { lock.withLock { holding != nil } }

    /// Renews the lease now if a renewal is due. Returns false once the lease is lost (refused
    /// by the store, or not renewed for `ObjectLease.giveUpAfter`).
    @discardableResult
    public func renewIfDue() async -> Bool {
        guard let current = lock.withLock({ holding }) else { return false }
        let now = Self.now()
        guard current.isDue(rule, now: now) else { return true }
        do {
            let etag = try await client.put(
                key: key, bytes: Array((holder + "\n").utf8), contentType: "text/plain",
                condition: .ifMatch(current.etag))
            lock.withLock { holding?.renewed(etag: etag, at: now) }
            return true
        } catch let error as S3Error where error.code == .preconditionFailed {
            lock.withLock { holding = nil }
            return false
        } catch {
            // A transient failure: keep trying until the lease is too old to trust.
            return lock.withLock {
                if holding?.mustGiveUp(rule, now: Self.now()) == true { holding = nil }
                return holding != nil
            }
        }
    }

    /// Renews in the background until `release()`; `onLost` is called once if the lease is lost.
    public func keepRenewing(onLost: @escaping @Sendable () -> Void) {
        let task = Task { [weak self, rule] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(min(rule.renewInterval, 5) * 1000)))
                guard let self, !Task.isCancelled else { return }
                if await !self.renewIfDue() {
                    onLost()
                    return
                }
            }
        }
        lock.withLock { renewer = task }
    }

    /// Stops renewing and deletes the lease object when it is still this run's (its ETag
    /// unchanged). Idempotent.
    public func release() async {
        let (task, current) = lock.withLock { () -> (Task<Void, Never>?, ObjectLease.Holding?) in
            defer {
                renewer = nil
                holding = nil
            }
            return (renewer, holding)
        }
        task?.cancel()
        guard let current else { return }
        if let info = try? await client.head(key: key), info.etag == current.etag {
            try? await client.delete(key: key)
        }
    }

    /// A monotonic clock in seconds.
    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
