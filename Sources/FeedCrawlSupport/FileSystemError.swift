#if canImport(Glibc)
import Glibc
#endif

/// A failed file-system call: what was attempted, on which path, and the `errno` it returned.
///
/// `description` reads like `write /srv/out/manifest.json: no space left on device`.
public struct FileSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation that failed: `open`, `write`, `fsync`, `rename`, `mkdir`, `read`, ...
    public var operation: String
    /// The path the operation was applied to.
    public var path: String
    /// The `errno` value.
    public var code: Int32

    /// Creates an error; `code` defaults to the current `errno`.
    public init(_ operation: String, path: String, code: Int32 = errno) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// Whether the device is full (ENOSPC) or the quota exhausted (EDQUOT).
    public var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }

    /// Whether the path (or a directory leading to it) does not exist (ENOENT).
    public var isNotFound: Bool { code == ENOENT }

    /// Whether a size limit was exceeded (EFBIG), e.g. by `FileIO.read(_:maxBytes:)`.
    public var isTooLarge: Bool { code == EFBIG }

    /// A short lowercase explanation of `code`, e.g. "no space left on device".
    public var reason: String { Self.reason(for: code) }

    public var description: String { "\(operation) \(path): \(reason)" }

    /// A short lowercase explanation of an `errno` value.
    public static func reason(for code: Int32) -> String {
        switch code {
        case ENOSPC: return "no space left on device"
        case EDQUOT: return "disk quota exceeded"
        case ENOENT: return "no such file or directory"
        case EACCES, EPERM: return "permission denied"
        case EROFS: return "read-only file system"
        case EEXIST: return "file exists"
        case ENOTDIR: return "not a directory"
        case EISDIR: return "is a directory"
        case ENAMETOOLONG: return "file name too long"
        case EMFILE, ENFILE: return "too many open files"
        case EIO: return "input/output error"
        case EFBIG: return "file too large"
        case EWOULDBLOCK: return "resource temporarily unavailable"
        case EINVAL: return "invalid argument"
        default:
            guard let text = strerror(code) else { return "errno \(code)" }
            return String(cString: text).lowercased() + " (errno \(code))"
        }
    }
}
