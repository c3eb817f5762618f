import FeedCrawlHTTP

/// The one way in to the stores and the wrappers from outside this module: each factory returns
/// `any Backend`, so the kit never names a store (the stores are internal here, and the compiler
/// keeps it so).
package enum Backends {
    /// A store in memory, empty, for tests (`MemoryBackend`): `properties` default 4 connections,
    /// no bound on staged bodies, cannot fill up.
    package static func memory(
        properties: BackendProperties = BackendProperties(connections: 4, maxWaitingStaged: nil, canFillUp: false)
    ) -> any Backend {
        MemoryBackend(properties: properties)
    }

    /// OUT as the folder `path` (`FolderBackend`): made when missing, but not its parent (then
    /// `.notFound`, saying to create the parent or choose another `--out`); held open until the
    /// store and its staged bodies are gone.
    package static func folder(_ path: String) throws(BackendError) -> any Backend {
        try FolderBackend(path)
    }

    /// The backend a run or a command uses for OUT: the object store `objectStore` names (OUT
    /// `s3://BUCKET/PREFIX`, reached with `network`'s CA bundle, proxy and User-Agent), else the
    /// folder `out`; wrapped in `policy` (`wrapped`). `log` hears what no error says (a dead
    /// run's lock taken over; with `detail` true, for `--verbose`, which lock the store allows).
    package static func open(
        out: String, objectStore: ObjectStoreTarget?, network: HTTPEngine.Configuration, policy: RequestPolicy,
        log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void = { _, _ in }
    ) throws(BackendError) -> any Backend {
        wrapped(try store(out: out, objectStore: objectStore, network: network, policy: policy, log: log), policy: policy)
    }

    /// The store alone (`open` without the wrappers): for a run that wraps it twice, its images'
    /// saves bounded by `--deadline` and the archive's closing writes not (`wrapped` with a policy
    /// without the deadline). The store's own attempts follow `policy` without its deadline.
    package static func store(
        out: String, objectStore: ObjectStoreTarget?, network: HTTPEngine.Configuration, policy: RequestPolicy,
        log: @escaping @Sendable (_ message: String, _ detail: Bool) -> Void = { _, _ in }
    ) throws(BackendError) -> any Backend {
        guard let objectStore else { return try folder(out) }
        var configuration = objectStore.configuration
        configuration.policy = policy
        configuration.policy.retry.deadline = nil
        return try s3(location: objectStore.location, configuration: configuration, network: network, log: log)
    }

    /// `store` as a run uses it: `Retrying(Paced(Deadline(store)))`. Every operation is retried
    /// by `policy.retry` (`--retries`, `--max-retry-wait`); every save attempt passes the pacing
    /// gate (fewer saves at once, spaced, while the store pushes back); and when the policy has a
    /// deadline (`--deadline`) every attempt ends at most 2 s after it, one started after it fails
    /// at once (so closing writes after the deadline need a stack built with a policy without it).
    package static func wrapped(_ store: any Backend, policy: RequestPolicy) -> any Backend {
        var inner = store
        if let deadline = policy.retry.deadline { inner = DeadlineBackend(inner, deadline: deadline) }
        return RetryingBackend(PacedBackend(inner), policy: policy.retry)
    }

    /// `base` with nothing saved or removed (`DryRunBackend`): each save and remove it would make
    /// is told to `report` ("would save …", "would remove …"); reads and locks go through.
    package static func dryRun(_ base: any Backend, report: @escaping @Sendable (String) -> Void) -> any Backend {
        DryRunBackend(base, report: report)
    }
}
