#if canImport(Glibc)
import Glibc
#endif
import FeedCrawlSupport

/// An anonymous scratch file (under `$TMPDIR`, or a folder given) for data a run writes once and reads back (sorted runs of
/// item keys), so memory stays flat however many items there are. It is made with `O_TMPFILE`
/// (no name, gone when the process ends, also when it is killed), else as a file that is removed
/// at once after it is created. Not thread-safe: one owner.
final class Spill {
    private let fd: Int32
    /// Names the file in errors and for `WriteFaults` (it has no name of its own).
    let faultPath: String
    private(set) var size: Int64 = 0
    /// The folder it is in (another scratch file for a second writer goes there too).
    let directory: String
    /// Whether the file position may be past `size` (after a failed write).
    private var misplaced = false

    /// A scratch file in `directory`, or nil when none can be made there (callers then keep
    /// their data in memory).
    init?(directory: String) {
        self.directory = directory
        faultPath = directory + "/.spill"
        // O_TMPFILE (__O_TMPFILE | O_DIRECTORY) is a macro Swift does not import.
        let oTmpfile: Int32 = 0o20_000_000 | O_DIRECTORY
        var fd = open(directory, oTmpfile | O_RDWR | O_CLOEXEC, 0o600)
        if fd < 0 {
            let path = AtomicFile.temporaryPath(for: faultPath)
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { unlink(path) }
        }
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Appends `bytes`; returns their offset, or nil when the write failed (a full disk).
    func append(_ bytes: [UInt8]) -> Int64? {
        let written = bytes.withUnsafeBytes { raw in
            Result { () throws(FileSystemError) in
                // Reads use pread, so the file position stays at the end, unless a failed write
                // left part of its bytes: then the next append starts at `size` again.
                if misplaced { _ = lseek(fd, off_t(size), SEEK_SET) }
                try FileIO.writeAll(fd, raw, path: faultPath)
            }
        }
        guard case .success = written else {
            misplaced = true
            return nil
        }
        misplaced = false
        defer { size += Int64(bytes.count) }
        return size
    }

    /// Empties the file (its space given back).
    func truncate() {
        if ftruncate(fd, 0) == 0 {
            _ = lseek(fd, 0, SEEK_SET)
            size = 0
            misplaced = false
        }
    }

    /// The `count` bytes at `offset`, or nil when they cannot be read back.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        try? FileIO.readAt(fd, offset: offset, count: count, path: faultPath) { Array($0) }
    }
}
