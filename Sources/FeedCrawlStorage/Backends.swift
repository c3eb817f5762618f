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

    // The S3 store (`S3Backend`) and `open(out:)`, which chooses a folder or S3 from OUT and
    // returns `wrapped(store, policy:)`, belong here too: `static func s3(...)` and
    // `static func open(out: String, policy: RequestPolicy, ...) throws(BackendError) -> any Backend`.
}
