import Glibc

/// A directory held open, against which relative file destinations are resolved
/// (`openat`, `renameat`, `unlinkat`): the kernel then walks only the path below it instead of
/// the whole absolute path, for every file of a crawl. The descriptor is closed when the last
/// reference goes away, so a request that names it keeps it open while it runs.
public final class FileDirectory: Sendable {
    /// The directory's path as given, for messages and for `absolutePath(_:)`.
    public let path: String
    /// The open descriptor (`O_RDONLY | O_DIRECTORY | O_CLOEXEC`).
    let fd: Int32

    /// Opens the directory at `path`.
    public init(path: String) throws(FileSystemError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError("open", path: path) }
        self.path = path
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// `relative` as a path from the working directory: `"<path>/<relative>"`, or `relative`
    /// itself when it is absolute.
    public func absolutePath(_ relative: String) -> String {
        if relative.utf8.first == UInt8(ascii: "/") { return relative }
        return path == "/" ? "/" + relative : path + "/" + relative
    }
}

/// A file path resolved against `directory` when there is one (else the working directory).
enum DirectoryRelative {
    static func open(_ path: String, in directory: FileDirectory?, flags: Int32, mode: mode_t) -> Int32 {
        openat(directory?.fd ?? AT_FDCWD, path, flags, mode)
    }

    static func unlink(_ path: String, in directory: FileDirectory?) {
        _ = unlinkat(directory?.fd ?? AT_FDCWD, path, 0)
    }

    static func rename(_ from: String, to: String, in directory: FileDirectory?) -> Bool {
        let fd = directory?.fd ?? AT_FDCWD
        return renameat(fd, from, fd, to) == 0
    }

    /// `path` as a path from the working directory, for messages.
    static func display(_ path: String, in directory: FileDirectory?) -> String {
        directory?.absolutePath(path) ?? path
    }
}
