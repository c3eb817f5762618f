import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// Why a backend operation failed: what was attempted, where, and what the system or the store
/// said, with what callers and wrappers decide by (`kind`, `retryAfter`).
///
/// `description` reads like `cannot save OUT/cache/ab/….jpg: no space left on device` or
/// `cannot load s3://mirror/feeds/manifest.json: AccessDenied (403): Access Denied`.
package struct BackendError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Nothing under that name.
        case notFound
        /// A passing failure worth retrying (no answer, a connection lost, a 5xx, a timeout).
        case transient
        /// The store asked us to slow down (503 `SlowDown`, 429): retried, and paced.
        case pushedBack
        /// The device is full, over quota or read-only (`ENOSPC`, `EDQUOT`, `EROFS`): the run
        /// stops writing.
        case full
        /// Refused for good (credentials, permissions, no such bucket, a bad request or range).
        case refused
        /// Another holder has the lock (`Backend.lock`); `reason` says who.
        case lockHeld
        /// The task was cancelled (a signal, `--deadline`).
        case cancelled
    }

    package var kind: Kind
    /// What was attempted: `save`, `load`, `stat`, `list`, `remove`, `lock`, `stage`.
    package var operation: String
    /// Where (`Backend.location`), for people.
    package var location: String
    /// What the system or the store said (`no space left on device`, `SlowDown (503): …`).
    package var reason: String
    /// The `errno` of a failed system call, or 0.
    package var code: Int32
    /// Seconds the store asked to wait before a retry (`Retry-After`), when it said.
    package var retryAfter: Double?
    /// Attempts made (the retrying wrapper counts them); 1 unless retried.
    package var attempts: Int

    package init(
        _ kind: Kind, _ operation: String, location: String, reason: String, code: Int32 = 0, retryAfter: Double? = nil
    ) {
        self.kind = kind
        self.operation = operation
        self.location = location
        self.reason = reason
        self.code = code
        self.retryAfter = retryAfter
        attempts = 1
    }

    /// A failed system call's error: its kind from `code` (`ENOENT` not found; `ENOSPC`,
    /// `EDQUOT`, `EROFS` full; `EINTR`, `EAGAIN`, `EIO` transient; the rest refused).
    package static func system(_ operation: String, location: String, code: Int32) -> BackendError {
        let kind: Kind
        switch code {
        case ENOENT: kind = .notFound
        case ENOSPC, EDQUOT, EROFS: kind = .full
        case EINTR, EAGAIN, EIO: kind = .transient
        default: kind = .refused
        }
        return BackendError(kind, operation, location: location, reason: FileSystemError.reason(for: code), code: code)
    }

    /// Whether retrying may help (`transient`, `pushedBack`).
    package var isTransient: Bool { kind == .transient || kind == .pushedBack }

    package var description: String {
        var text = "cannot \(operation) \(location): \(reason)"
        if attempts > 1 { text += " (after \(attempts) attempts)" }
        return text
    }
}
