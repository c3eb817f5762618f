#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe whole-file writes: the bytes go to a temporary file in the destination's directory,
/// which is then renamed over the destination, so readers see the old file or the new one,
/// never a mixture. Temporary names are `"<final name>.<random hex>.part"`.
public enum AtomicFile {
    /// Suffix of temporary files (`.part`).
    public static let temporarySuffix = ".part"

    /// Writes `bytes` to `path` atomically.
    ///
    /// - Parameters:
    ///   - permissions: mode of the new file before the umask; default `0o644`.
    ///   - durable: when true (the default) the file is `fsync`ed before the rename and the
    ///     directory after it, so the new content survives a power loss. When false the rename is
    ///     still atomic for other processes, but a crash of the machine may lose the new file.
    /// - Throws: `FileSystemError` naming the failing step, the path and errno (e.g.
    ///   `write /out/manifest.json.3f09c2a1b4d8.part: no space left on device`). The temporary
    ///   file is removed on failure; the destination is untouched.
    public static func write(
        _ bytes: [UInt8], to path: String, permissions: mode_t = 0o644, durable: Bool = true
    ) throws(FileSystemError) {
        try replace(path, permissions: permissions, durable: durable) { (fd, temp) throws(FileSystemError) in
            try FileIO.writeAll(fd, bytes, path: temp)
        }
    }

    /// The one atomic-replace sequence: a new temporary file in the same folder, `fill`, fsync,
    /// close, rename over `path`, fsync the folder. On any failure the temporary file is removed
    /// and `path` is untouched.
    static func replace(
        _ path: String, permissions: mode_t, durable: Bool,
        fill: (Int32, String) throws(FileSystemError) -> Void
    ) throws(FileSystemError) {
        let temp = temporaryPath(for: path)
        let fd = try FileIO.open(temp, O_WRONLY | O_CREAT | O_EXCL, mode: permissions)
        do {
            try fill(fd, temp)
            if durable { try FileIO.sync(fd, path: temp) }
        } catch {
            _ = Glibc.close(fd)
            _ = unlink(temp)
            throw error
        }
        do throws(FileSystemError) {
            try FileIO.close(fd, path: temp)
            if rename(temp, path) != 0 { throw FileSystemError("rename", path: path) }
        } catch {
            _ = unlink(temp)
            throw error
        }
        if durable { try FileIO.syncDirectory(FileIO.directoryName(of: path)) }
    }

    /// A fresh temporary path next to `path`: `"<path>.<12 random hex digits>.part"`.
    public static func temporaryPath(for path: String) -> String {
        var random = SystemRandomNumberGenerator()
        let suffix = String(random.next() & 0xFFFF_FFFF_FFFF, radix: 16)
        return path + "." + String(repeating: "0", count: 12 - suffix.count) + suffix + temporarySuffix
    }

    /// Whether a file name (or path) is one of our temporary files: it ends in `.part`.
    /// Leftovers from an interrupted run can be deleted.
    public static func isTemporary(_ name: String) -> Bool {
        // Bytes, not characters: file names are bytes, and this runs for every cache file.
        let suffix = temporarySuffix.utf8
        return name.utf8.count >= suffix.count && name.utf8.suffix(suffix.count).elementsEqual(suffix)
    }

    /// `mkdir -p`: creates `path` and any missing parents with `permissions` (default `0o755`).
    /// Existing directories are fine; an existing non-directory in the way throws ENOTDIR.
    public static func createDirectories(_ path: String, permissions: mode_t = 0o755) throws(FileSystemError) {
        guard !path.isEmpty else { throw FileSystemError("mkdir", path: path, code: ENOENT) }
        if FileIO.isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, permissions) == 0 { continue }
            let code = errno
            if code == EEXIST {
                guard FileIO.isDirectory(prefix) else { throw FileSystemError("mkdir", path: prefix, code: ENOTDIR) }
                continue
            }
            throw FileSystemError("mkdir", path: prefix, code: code)
        }
    }
}
