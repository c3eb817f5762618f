import FeedCrawlHTTP
import FeedCrawlSupport

extension S3Backend {
    /// The store's codes that ask the client to slow down, whatever the status.
    static let pushBackCodes: Set<S3Error.Code> = [.slowDown, "Throttling", "ThrottlingException", "RequestLimitExceeded"]

    /// What a failed request of `operation` on `location` means to a caller, as a `BackendError`:
    ///
    /// | what happened | kind |
    /// |---|---|
    /// | the task was cancelled (`CancellationError`), the engine shut down | `.cancelled` |
    /// | 404 (`NoSuchKey`, a HEAD's `NotFound`, any 404 but `NoSuchBucket`) | `.notFound` |
    /// | 503 or 429, or the codes `SlowDown`, `Throttling`, `RequestLimitExceeded` | `.pushedBack`, `retryAfter` from `Retry-After` |
    /// | another 5xx, 408, `InternalError`, `RequestTimeout`; a timeout, a failed connection, a body cut short | `.transient` |
    /// | any other answer: `AccessDenied`, `SignatureDoesNotMatch`, `InvalidAccessKeyId`, `NoSuchBucket`, `InvalidRange`, `BadDigest`, `PreconditionFailed`, other 4xx | `.refused` |
    /// | a body over the load's `maxBytes`, a request this client cannot make, another transfer failure | `.refused` |
    /// | a local file (`FileSystemError`) | by its `errno` (`BackendError.system`) |
    ///
    /// The reason is the store's own code, status and message (`S3Error.reason`), or the transfer
    /// failure; every secret of `secrets` is replaced by `<redacted>` (the store's messages were
    /// scrubbed already; this also covers texts made here).
    static func error(_ error: any Error, _ operation: String, location: String, secrets: [String]) -> BackendError {
        var result: BackendError
        switch error {
        case let error as BackendError:
            result = error
        case is CancellationError:
            result = BackendError(.cancelled, operation, location: location, reason: "cancelled")
        case let error as S3Error:
            result = BackendError(kind(of: error), operation, location: location, reason: error.reason)
            if result.kind == .pushedBack { result.retryAfter = error.retryAfterSeconds.map(Double.init) }
        case let error as HTTPError:
            result = BackendError(kind(of: error), operation, location: location, reason: error.description)
        case let error as FileSystemError:
            result = BackendError.system(operation, location: location, code: error.code)
        default:
            result = BackendError(.refused, operation, location: location, reason: "\(error)")
        }
        for secret in secrets where result.reason.contains(secret) {
            result.reason = result.reason.replacing(secret, with: "<redacted>")
        }
        return result
    }

    /// The kind of a failed S3 request (see `error(_:_:location:secrets:)`).
    static func kind(of error: S3Error) -> BackendError.Kind {
        if let transport = error.transport { return kind(of: transport) }
        let status = error.status ?? 0
        if let code = error.code, pushBackCodes.contains(code) { return .pushedBack }
        if status == 503 || status == 429 { return .pushedBack }
        if status == 404 && error.code != .noSuchBucket { return .notFound }
        if error.code == .noSuchKey { return .notFound }
        return error.isRetryable ? .transient : .refused
    }

    /// The kind of a transfer that got no answer: a timeout, a failed connection or a body cut
    /// short may pass; the rest (a body over the cap, a bad request, TLS) will not.
    static func kind(of error: HTTPError) -> BackendError.Kind {
        if error == .engineShutDown { return .cancelled }
        return error.isTransient ? .transient : .refused
    }
}
