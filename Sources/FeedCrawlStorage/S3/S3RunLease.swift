import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import FeedCrawlSupport

/// The run lock of an OUT in object storage, on any S3 store. `ObjectLease` decides; this type
/// reads and writes the lock objects. Two kinds, chosen by asking the store once per lock taken
/// (`honoursConditionalWrites`):
///
/// - **`.conditional`**, where the store refuses a second create-only PUT of a key: one lease
///   object (`PREFIX/.lock`, or a shard's `shards/N/K/.lock`), created with `If-None-Match: *`
///   (of two runs starting at once the store lets one create it), renewed with `If-Match: <etag>`,
///   and taken over with `If-Match` once it has gone unrenewed for `ObjectLease.ttl`.
/// - **`.listed`**, where the store ignores conditional writes (rclone's and JuiceFS's S3
///   servers overwrite): needs only read-after-write consistency, as restic's locks do. The run
///   writes a lock object under a name of its own (`PREFIX/locks/<16 hex digits>`, saying
///   `waiting`), lists the lock objects, and goes on (rewriting its own as `held`) only when no
///   other live one is there. One that is `held` refuses it at once; one still `waiting` (two
///   runs starting at the same moment) makes both step back and try again after a random
///   pause, twice, so that one of them goes on. A lock object not rewritten for
///   `ObjectLease.ttl` is a dead run's: it is removed (and logged). Renewal rewrites the
///   object after checking that it is still there.
///
/// Expiry is judged on the store's clock (its `Date` minus the object's `Last-Modified`). A
/// holder that cannot renew for `ObjectLease.giveUpAfter` loses the lock (`Loss.unreachable`);
/// one whose lock another run took over loses it too (`Loss.takenOver`); either way the run must
/// stop writing. `release()` removes the lock object when it is still this run's, also where HEAD
/// answers carry no ETag (JuiceFS): the object's body names this run.
///
/// The body is `HOLDER\nrun TOKEN\n` (a listed lock adds `waiting` or `held`); the first line is
/// shown when another run holds it.
public final class S3RunLease: @unchecked Sendable {
    /// How the lock is held on this store.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// One lease object, created and renewed with conditional writes.
        case conditional
        /// A lock object of this run's own among `locks/`, for stores that ignore conditional writes.
        case listed

        public var description: String {
            switch self {
            case .conditional: return "a lease object written with conditional requests (If-None-Match, If-Match)"
            case .listed: return "lock objects under locks/ (the store ignores conditional writes)"
            }
        }
    }

    /// Why the lock could not be taken.
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

    /// Why a held lock was lost.
    public enum Loss: Sendable, Equatable, CustomStringConvertible {
        /// Another run took it over (the store refused a renewal, or the lock object is gone).
        case takenOver
        /// The store did not answer renewals for `ObjectLease.giveUpAfter`: the last error.
        case unreachable(String)

        public var description: String {
            switch self {
            case .takenOver: return "another run took it over"
            case .unreachable(let why): return "the store could not be reached to renew it (\(why))"
            }
        }
    }

    /// The name of a lease object (`PREFIX/.lock`, a shard's `PREFIX/shards/N/K/.lock`).
    package static let lockObjectName = ".lock"

    /// The lock object's key (with the prefix).
    public let key: String
    /// How the lock is held.
    public let kind: Kind
    /// What the object says about its holder (its first line).
    public let holder: String
    private let body: [UInt8]
    private let client: S3Client
    private let rule: ObjectLease
    private let lock = Lock()
    // Guarded by `lock`.
    private var holding: ObjectLease.Holding?
    private var loss: Loss?
    private var lastFailure = ""
    private var renewer: Task<Void, Never>?

    init(client: S3Client, key: String, kind: Kind, holder: String, body: [UInt8], rule: ObjectLease, etag: String) {
        self.client = client
        self.key = key
        self.kind = kind
        self.holder = holder
        self.body = body
        self.rule = rule
        holding = ObjectLease.Holding(etag: etag, at: Self.now())
    }

    /// Takes the lock whose lease object is `key` (`PREFIX/.lock`; listed locks go in the
    /// `locks/` folder beside it), or throws `Failure.held` when a live run holds it. `kind`
    /// nil (default) asks the store which kind it supports (`probe`: a probe object in the
    /// folder of `key`, after removing stale ones).
    /// `log` hears which kind is used (`detail` true) and each dead run's lock taken over.
    public static func acquire(
        client: S3Client, key: String, holder: String, rule: ObjectLease = ObjectLease(), kind: Kind? = nil,
        log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void = { _, _ in }
    ) async throws(Failure) -> S3RunLease {
        let token = randomToken()
        let body = Array((holder + "\nrun " + token + "\n").utf8)
        let folder = String(key.dropLast(key.hasSuffix(Self.lockObjectName) ? Self.lockObjectName.utf8.count : 0))
        let kind = try await storeFailure("PUT", key) { () async throws -> Kind in
            if let kind { return kind }
            return try await probe(client: client, folder: folder, token: token, rule: rule, log: log) ? .conditional : .listed
        }
        log("run lock on this store: \(kind)", true)
        switch kind {
        case .conditional:
            return try await acquireConditional(client: client, key: key, holder: holder, body: body, rule: rule, log: log)
        case .listed:
            return try await acquireListed(
                client: client, key: folder + "locks/" + token, folder: folder + "locks/", holder: holder, body: body,
                rule: rule, log: log)
        }
    }

    /// Whether the store refuses a second create-only PUT (`If-None-Match: *`) of one key: PUT
    /// `probeKey` twice that way, then delete it (a run killed in between leaves it:
    /// `removeStaleProbes` removes it later).
    public static func honoursConditionalWrites(client: S3Client, probeKey: String) async throws -> Bool {
        let probe = Array("feedcrawl: does this store honour If-None-Match?\n".utf8)
        try await client.put(key: probeKey, bytes: probe, contentType: "text/plain", condition: .ifNoneMatch)
        let honoured: Bool
        do {
            try await client.put(key: probeKey, bytes: probe, contentType: "text/plain", condition: .ifNoneMatch)
            honoured = false
        } catch let error as S3Error where error.code == .preconditionFailed {
            honoured = true
        } catch {
            await deleteTrying(client: client, key: probeKey)
            throw error
        }
        await deleteTrying(client: client, key: probeKey)
        return honoured
    }

    // MARK: One lease object, conditional writes

    private static func acquireConditional(
        client: S3Client, key: String, holder: String, body: [UInt8], rule: ObjectLease,
        log: @Sendable (String, Bool) -> Void
    ) async throws(Failure) -> S3RunLease {
        // Two rounds: a lease that vanished between the refused create and the HEAD is created
        // again; anything racing beyond that is another run.
        for _ in 0..<2 {
            do {
                let etag = try await client.put(key: key, bytes: body, contentType: "text/plain", condition: .ifNoneMatch)
                return S3RunLease(client: client, key: key, kind: .conditional, holder: holder, body: body, rule: rule, etag: etag)
            } catch let error as S3Error where error.code == .preconditionFailed {
                // Held, or stale: look at it.
            } catch {
                throw .store(s3Error(error, "PUT", key))
            }
            let info = try await storeFailure("HEAD", key) { try await client.head(key: key) }
            guard let info else { continue }
            switch rule.step(seen(info)) {
            case .create:
                continue
            case .held(let expiresIn):
                throw .held(holder: await currentHolder(client: client, key: key), expiresIn: expiresIn)
            case .takeOver(let stale, let idle):
                let previous = await currentHolder(client: client, key: key)
                do {
                    let etag = try await client.put(key: key, bytes: body, contentType: "text/plain", condition: .ifMatch(stale))
                    log("took over the run lease of a run that stopped renewing it \(idle) s ago (\(previous.isEmpty ? "unnamed" : previous))", false)
                    return S3RunLease(client: client, key: key, kind: .conditional, holder: holder, body: body, rule: rule, etag: etag)
                } catch let error as S3Error where error.code == .preconditionFailed {
                    // Another run took it over first.
                    throw .held(holder: await currentHolder(client: client, key: key), expiresIn: Int64(rule.ttl))
                } catch {
                    throw .store(s3Error(error, "PUT", key))
                }
            }
        }
        throw .held(holder: await currentHolder(client: client, key: key), expiresIn: Int64(rule.ttl))
    }

    // MARK: Holding

    /// Whether this run still holds the lock.
    public var isHeld: Bool { lock.withLock { holding != nil } }

    /// Why the lock was lost, once it is.
    public var lost: Loss? { lock.withLock { loss } }

    /// Renews the lock now if a renewal is due. Returns false once the lock is lost (`lost`
    /// says why).
    @discardableResult
    public func renewIfDue() async -> Bool {
        guard let current = lock.withLock({ holding }) else { return false }
        let now = Self.now()
        guard current.isDue(rule, now: now) else { return true }
        do {
            let etag: String
            switch kind {
            case .conditional:
                etag = try await client.put(
                    key: key, bytes: body, contentType: "text/plain", condition: .ifMatch(current.etag))
            case .listed:
                guard try await client.head(key: key) != nil else { throw S3Error.taken(key) }
                etag = try await client.put(key: key, bytes: body, contentType: "text/plain")
            }
            lock.withLock { holding?.renewed(etag: etag, at: now) }
            return true
        } catch let error as S3Error where error.code == .preconditionFailed {
            lose(.takenOver)
            return false
        } catch {
            // A transient failure: keep trying until the lock is too old to trust.
            let text = (error as? S3Error)?.description ?? "\(error)"
            return lock.withLock {
                lastFailure = text
                if holding?.mustGiveUp(rule, now: Self.now()) == true {
                    holding = nil
                    loss = .unreachable(lastFailure)
                }
                return holding != nil
            }
        }
    }

    private func lose(_ why: Loss) {
        lock.withLock {
            holding = nil
            loss = why
        }
    }

    /// Renews in the background until `release()`; `onLost` is called once if the lock is lost.
    /// A lock released meanwhile is not lost: `onLost` is not called then.
    public func keepRenewing(onLost: @escaping @Sendable (Loss) -> Void) {
        let task = Task { [weak self, rule] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(min(rule.renewInterval, 5) * 1000)))
                guard let self, !Task.isCancelled else { return }
                // In a task of its own, which `release()` does not cancel: a renewal is finished,
                // not cut off mid-request (a store may go on writing a PUT whose client is gone,
                // after the release removed the object).
                if await !Task(operation: { await self.renewIfDue() }).value {
                    // False with no loss: `release()` took the lock away while this slept.
                    guard !Task.isCancelled, let loss = self.lost else { return }
                    onLost(loss)
                    return
                }
            }
        }
        lock.withLock { renewer = task }
    }

    /// Stops renewing and removes the lock object when it is still this run's: for a lease
    /// object, its ETag unchanged, or where the store's HEAD has no ETag its body this run's.
    /// A renewal in flight is waited for first (cancelled), so that it can neither change the
    /// lease object after this looked at it nor write a lock object again after it was
    /// removed. Idempotent.
    public func release() async {
        let task = lock.withLock { () -> Task<Void, Never>? in
            defer { renewer = nil }
            return renewer
        }
        task?.cancel()
        await task?.value
        let current = lock.withLock { () -> ObjectLease.Holding? in
            defer { holding = nil }
            return holding
        }
        guard let current else { return }
        switch kind {
        case .listed:
            await deleteLockObject()
        case .conditional:
            let client = self.client, key = self.key
            guard let found = await Self.trying({ try await client.head(key: key) }), let info = found else { return }
            if let etag = info.etag, !etag.isEmpty, !current.etag.isEmpty {
                guard etag == current.etag else { return }
            } else {
                guard let stored = await Self.trying({ try await client.get(key: key, maxBytes: 4096) }), stored == body
                else { return }
            }
            await deleteLockObject()
        }
    }

    /// DELETEs the lock object (`deleteTrying`).
    private func deleteLockObject() async {
        await Self.deleteTrying(client: client, key: key)
    }

    /// `request`'s answer, trying three times as `deleteTrying` does; nil when it failed.
    static func trying<T: Sendable>(_ request: () async throws -> T) async -> T? {
        for pause in [0.2, 0.5, 0] {
            do {
                return try await request()
            } catch let error as S3Error where error.isRetryable && pause > 0 {
                try? await Task.sleep(for: .milliseconds(Int(pause * 1000)))
            } catch {
                return nil
            }
        }
        return nil
    }

    /// DELETEs `key`, trying three times when the store fails in a way that may pass (0.2 s,
    /// then 0.5 s apart; a SlowDown, rclone's 500 for a key being written): nothing else retries
    /// the lease's own objects (`S3Client` makes one attempt), and a lock object or probe left
    /// behind keeps the next run out for `ObjectLease.ttl`, or stays until a run a minute later.
    static func deleteTrying(client: S3Client, key: String) async {
        _ = await trying { try await client.delete(key: key) }
    }

    // MARK: Helpers

    /// What a HEAD of a lock object shows the rule.
    static func seen(_ info: S3ObjectInfo) -> ObjectLease.Seen {
        let modified = info.lastModified.flatMap(ObjectLease.httpDate) ?? 0
        let storeNow = info.storeDate.flatMap(ObjectLease.httpDate) ?? modified
        return .present(etag: info.etag ?? "", lastModified: modified, storeNow: storeNow)
    }

    /// The first line of a lock object's body, trimmed (empty when it cannot be read).
    static func currentHolder(client: S3Client, key: String) async -> String {
        firstLine(await currentBody(client: client, key: key))
    }

    /// A lock object's body (empty when it cannot be read).
    static func currentBody(client: S3Client, key: String) async -> String {
        guard let bytes = try? await client.get(key: key, maxBytes: 4096) else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func firstLine(_ text: String) -> String {
        String(String(text.split(separator: "\n").first ?? "").trimmingASCIIWhitespace())
    }

    /// Runs `body`; a failure is the store's (`Failure.store`).
    static func storeFailure<T>(
        _ operation: String, _ key: String, _ body: () async throws -> T
    ) async throws(Failure) -> T {
        do {
            return try await body()
        } catch {
            throw .store(s3Error(error, operation, key))
        }
    }

    static func s3Error(_ error: any Error, _ operation: String, _ key: String) -> S3Error {
        (error as? S3Error) ?? S3Error(operation: operation, key: key, message: "\(error)")
    }

    /// 16 random hex digits.
    static func randomToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 8)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        return bytes.hexString
    }

    /// A monotonic clock in seconds.
    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

extension S3Error {
    /// The lock object `key` is gone: another run removed it as a dead run's.
    static func taken(_ key: String) -> S3Error {
        S3Error(operation: "HEAD", key: key, status: 412, code: .preconditionFailed, message: "the run lock object is gone")
    }
}
