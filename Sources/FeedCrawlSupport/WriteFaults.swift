import Glibc

/// Injected write failures, so tests can drive the disk-full path (ENOSPC) through the real
/// code without filling a real disk or mounting anything.
///
/// Every place feedcrawl writes file bytes asks `check(path:count:)` first: the cache store's
/// sinks (`LocalCacheSink`: downloads, S3 spool files), `FileIO.writeAll` (the manifest's atomic writes), the journal and the manifest
/// reserve. A fault is armed for one directory and applies only to paths under it, so tests
/// running in parallel in one process do not see each other's faults. When no fault is armed
/// (always, outside tests) the check is one relaxed atomic load.
///
/// Chosen over a mount-only test because it is deterministic, needs no privileges, and reaches
/// every write site, also those a small tmpfs fills in an unpredictable order.
package enum WriteFaults {
    /// A simulated device under `directory`: `budget` bytes may still be written, then every
    /// write fails with `code`.
    private struct Fault {
        var directory: String
        var budget: Int64
        var code: Int32
    }

    private static let faults = Locked<[Fault]>([])

    /// Lets `allowBytes` more bytes be written under `directory`, then fails every write there
    /// with `code` (default ENOSPC) until `disarm(directory:)`.
    static func arm(directory: String, allowBytes: Int64, code: Int32 = ENOSPC) {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        faults.withLock { list in
            list.removeAll { $0.directory == prefix }
            list.append(Fault(directory: prefix, budget: max(0, allowBytes), code: code))
        }
    }

    /// Removes the fault for `directory` ("space was freed").
    static func disarm(directory: String) {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        faults.withLock { list in
            list.removeAll { $0.directory == prefix }
        }
    }

    /// The errno a write of `count` bytes to `path` must fail with, or nil to go ahead.
    /// A write that fits the remaining budget consumes it.
    /// `path` is only evaluated when a fault is armed.
    @inline(__always)
    package static func check(path: @autoclosure () -> String, count: Int) -> Int32? {
        guard faults.withLock({ !$0.isEmpty }) else { return nil }
        let path = path()
        return faults.withLock { list in
            guard let index = list.firstIndex(where: { path.hasPrefix($0.directory) }) else { return nil }
            if list[index].budget < Int64(count) { return list[index].code }
            list[index].budget -= Int64(count)
            return nil
        }
    }

    /// Gives `count` bytes back to the fault covering `path` (a file there was deleted).
    package static func credit(path: String, count: Int64) {
        guard count > 0, faults.withLock({ !$0.isEmpty }) else { return }
        faults.withLock { list in
            guard let index = list.firstIndex(where: { path.hasPrefix($0.directory) }) else { return }
            list[index].budget += count
        }
    }
}
