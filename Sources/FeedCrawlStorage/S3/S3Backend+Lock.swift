import FeedCrawlSupport

extension S3Backend {
    /// Takes the run lock `handle` (`.lock`, a shard's `shards/N/K/.lock`) as `S3RunLease` does:
    /// the store is asked once, by this store's first exclusive lock, whether it honours
    /// conditional writes (a probe object `.lock-probe-<time>-<token>` beside the lock; stale
    /// probes removed first), then the lease object or a lock object under `locks/` is written.
    /// Another live holder: `.lockHeld`, naming it and saying when a killed run's lock expires.
    ///
    /// `.shared` gives a lock that excludes nothing and makes no request: object storage cannot
    /// share a lock, so shards on one OUT in a bucket each take their own exclusive one.
    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        guard handle.kind == .lock, handle.name == S3RunLease.lockObjectName
            || handle.name.hasSuffix("/" + S3RunLease.lockObjectName) else {
            throw refused("lock", handle, "only a run lock (.lock, shards/N/K/.lock) can be taken on object storage")
        }
        if mode == .shared { return SharedObjectLock() }
        let key = key(handle)
        let folder = String(key.dropLast(S3RunLease.lockObjectName.utf8.count))
        let secrets = client.configuration.credentials.secrets
        do {
            let kind = try await lockKind(folder: folder)
            let lease = try await S3RunLease.acquire(client: client, key: key, holder: holder, rule: rule, kind: kind, log: log)
            return S3BackendLock(lease: lease)
        } catch let failure as S3RunLease.Failure {
            switch failure {
            case .held(let other, _):
                throw BackendError(.lockHeld, "lock", location: location(handle), reason: Self.heldMessage(other, ttl: rule.ttl))
            case .store(let error):
                throw Self.error(await whyRefused(error), "lock", location: location(handle), secrets: secrets)
            }
        } catch {
            throw Self.error(await whyRefused(error), "lock", location: location(handle), secrets: secrets)
        }
    }

    /// The kind of lock the store honours, asked once (`S3RunLease.probe` in `folder`).
    private func lockKind(folder: String) async throws -> S3RunLease.Kind {
        if let known = lockKind.withLock({ $0 }) { return known }
        let honoured = try await S3RunLease.probe(
            client: client, folder: folder, token: S3RunLease.randomToken(), rule: rule, log: log)
        let kind: S3RunLease.Kind = honoured ? .conditional : .listed
        lockKind.withLock { $0 = $0 ?? kind }
        return kind
    }

    /// A store may refuse a PUT into a bucket that does not exist as `AccessDenied` (SeaweedFS
    /// does): a listing says which, and its `NoSuchBucket` is the error then.
    private func whyRefused(_ error: any Error) async -> any Error {
        guard let failure = error as? S3Error, failure.code == .accessDenied else { return error }
        do {
            _ = try await client.list(prefix: root.key(""), maxKeys: 1)
        } catch let listed as S3Error where listed.code == .noSuchBucket {
            return listed
        } catch {}
        return error
    }

    /// Why a run is refused a lock `holder` has (its lock object's first line: host, pid,
    /// start): who has it, that nothing was changed, and when a killed holder's lock expires.
    static func heldMessage(_ holder: String, ttl: Double) -> String {
        let text = String(holder.prefix(300))
        let who = text.isEmpty ? "another feedcrawl run" : "another feedcrawl run (\(TerminalText.sanitize(text)))"
        return "held by \(who); nothing was changed. Run again when it has finished; "
            + "a run that was killed stops holding it \(Int(ttl)) s after its last renewal"
    }
}

/// An exclusive lock on object storage: an `S3RunLease`, renewed by `keepHolding`.
final class S3BackendLock: BackendLock, Sendable {
    /// The lease held.
    let lease: S3RunLease
    /// Whether `keepHolding` started renewing.
    private let renewing = Locked(false)

    /// The lock `lease` holds.
    init(lease: S3RunLease) {
        self.lease = lease
    }

    /// Whether the lease is still this run's (false once lost or released).
    var isHeld: Bool { lease.isHeld }

    /// Renews the lease in the background (every `ObjectLease.renewInterval`) until `release()`;
    /// `onLost` hears once why it was lost (another run took it over, or the store could not be
    /// reached to renew it for `ObjectLease.giveUpAfter`). Only the first call starts renewing.
    func keepHolding(onLost: @escaping @Sendable (String) -> Void) {
        let first = renewing.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        lease.keepRenewing { onLost($0.description) }
    }

    /// Stops renewing and removes the lease when it is still this run's. Idempotent.
    func release() async {
        await lease.release()
    }
}

/// What `.shared` gives on object storage: held until released, excluding nothing.
final class SharedObjectLock: BackendLock, Sendable {
    /// Whether `release()` has not been called yet.
    private let held = Locked(true)

    /// True until `release()`.
    var isHeld: Bool { held.withLock { $0 } }

    /// Nothing to renew: it cannot be lost.
    func keepHolding(onLost: @escaping @Sendable (String) -> Void) {}

    /// Marks it released; no request. Idempotent.
    func release() async {
        held.withLock { $0 = false }
    }
}
