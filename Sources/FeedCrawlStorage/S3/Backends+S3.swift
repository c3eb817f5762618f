import FeedCrawlHTTP

extension Backends {
    /// The store on S3-compatible object storage under `location` (`S3Backend`), reached with
    /// `configuration` (credentials, region, endpoint; its `RequestPolicy` limits each attempt:
    /// timeouts, the deadline, never retries, which are `RetryingBackend`'s) through an engine of
    /// its own with `network`'s CA bundle, proxy and User-Agent. `log` (default: none) hears
    /// what no error says: a dead run's lock taken over, stale lock probes removed and which
    /// kind of lock the store honours (those with `detail` true, for `--verbose`). Makes no
    /// request; the engine or the spool folder that cannot be made is the error.
    package static func s3(
        location: S3Location, configuration: S3Configuration, network: HTTPEngine.Configuration,
        log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void = { _, _ in }
    ) throws(BackendError) -> any Backend {
        try S3Backend(location: location, configuration: configuration, network: network, log: log)
    }

    /// The object-storage location OUT names (`s3://BUCKET/PREFIX`), or nil when OUT is not an
    /// `s3://` URL (a folder). An `s3://` URL that is not a usable location throws why.
    package static func objectStoreLocation(_ out: String) throws(S3LocationError) -> S3Location? {
        guard out.hasPrefix("s3://") else { return nil }
        return try S3Location(parsing: out)
    }
}
