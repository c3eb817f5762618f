#if canImport(Glibc)
import Glibc
#endif

/// Small POSIX file helpers: whole-file reads, complete writes, removal, directory sync.
/// Every call retries on EINTR and reports failures as `FileSystemError`.
public enum FileIO {
    /// Opens `path` with `flags` (O_CLOEXEC is always added) and `mode` for created files.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(FileSystemError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw FileSystemError("open", path: path) }
        }
    }

    /// Writes all of `bytes` to `fd`, looping over partial writes and EINTR.
    /// `path` only labels errors (and selects an armed `WriteFaults`): it is evaluated only then,
    /// so a download's chunk writes build no path.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: @autoclosure () -> String) throws(FileSystemError) {
        guard var p = bytes.baseAddress else { return }
        if let code = WriteFaults.check(path: path(), count: bytes.count) {
            throw FileSystemError("write", path: path(), code: code)
        }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n > 0 {
                p += n
                left -= n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                // write() returning 0 for a non-zero count should not happen on files; treat it
                // like a full device rather than spinning.
                throw FileSystemError("write", path: path(), code: n == 0 ? ENOSPC : errno)
            }
        }
    }

    /// `writeAll(_:_:path:)` for the bytes of an array.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(FileSystemError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(FileSystemError) in try writeAll(fd, raw, path: path) } }.get()
    }

    /// `fsync` (or `fdatasync` when `dataOnly`), retrying on EINTR.
    public static func sync(_ fd: Int32, path: String, dataOnly: Bool = false) throws(FileSystemError) {
        while (dataOnly ? fdatasync(fd) : fsync(fd)) != 0 {
            if errno != EINTR { throw FileSystemError(dataOnly ? "fdatasync" : "fsync", path: path) }
        }
    }

    /// Closes `fd`, reporting an error (a deferred write error on some file systems).
    /// EINTR is not retried: on Linux the descriptor is released anyway.
    public static func close(_ fd: Int32, path: String) throws(FileSystemError) {
        if Glibc.close(fd) != 0, errno != EINTR { throw FileSystemError("close", path: path) }
    }

    /// Reads the whole file at `path`. Throws EFBIG ("file too large") when it holds more than
    /// `maxBytes` bytes (default 256 MiB), and ENOENT (`isNotFound`) when it does not exist.
    public static func read(_ path: String, maxBytes: Int = 256 << 20) throws(FileSystemError) -> [UInt8] {
        let fd = try open(path, O_RDONLY)
        defer { _ = Glibc.close(fd) }
        var out = [UInt8]()
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size > 0 { out.reserveCapacity(min(Int(st.st_size), maxBytes) + 1) }
        try readChunks(fd, path: path) { (chunk) throws(FileSystemError) in
            guard out.count + chunk.count <= maxBytes else { throw FileSystemError("read", path: path, code: EFBIG) }
            out.append(contentsOf: chunk)
        }
        return out
    }

    /// Reads `fd` from where it stands to its end, handing each chunk (at most 64 KiB, valid only
    /// during the call) to `chunk`; an error `chunk` throws ends the reading. `path` only labels
    /// errors.
    public static func readChunks(
        _ fd: Int32, path: String, _ chunk: (UnsafeRawBufferPointer) throws(FileSystemError) -> Void
    ) throws(FileSystemError) {
        let size = 64 << 10
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, size)
            if n > 0 {
                try chunk(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            } else if n == 0 {
                return
            } else if errno != EINTR {
                throw FileSystemError("read", path: path)
            }
        }
    }

    /// Removes the file at `path`; a missing file is not an error.
    public static func remove(_ path: String) throws(FileSystemError) {
        if unlink(path) != 0, errno != ENOENT { throw FileSystemError("unlink", path: path) }
    }

    /// Whether something exists at `path` (following symlinks).
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// Whether `path` is a directory (following symlinks).
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Flushes a directory's entries (after creating, renaming or removing files in it).
    public static func syncDirectory(_ path: String) throws(FileSystemError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { _ = Glibc.close(fd) }
        try sync(fd, path: path)
    }

    /// The working folder, absolute (`getcwd`); `"."` when it cannot be read (removed).
    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(cString: buffer)
    }

    /// The directory part of `path`: `"a/b/c"` → `"a/b"`, `"c"` → `"."`, `"/c"` → `"/"`.
    public static func directoryName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    /// The last component of `path`: `"a/b/c.jpg"` → `"c.jpg"`.
    public static func fileName(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }
}

extension FileIO {
    /// Reads `count` bytes at `offset` of the open file `fd` and calls `body` with them. Throws
    /// `FileSystemError` (EIO when the file is shorter than that).
    package static func readAt<T>(
        _ fd: Int32, offset: Int64, count: Int, path: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> T
    ) throws -> T {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
        defer { bytes.deallocate() }
        var done = 0
        while done < count {
            let n = pread(fd, bytes.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            if n > 0 {
                done += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                throw FileSystemError("read", path: path, code: n == 0 ? EIO : errno)
            }
        }
        return try body(UnsafeBufferPointer(rebasing: bytes[0..<count]))
    }
}
