import FeedCrawlKit
import Glibc
import FeedCrawlSupport

/// A log file opened for appending (`O_APPEND`, created 0644, its folder created if missing, as
/// `--metrics-file` does). One `write(2)` per line, so lines from concurrent runs or a
/// `logrotate copytruncate` never interleave mid-line. A line that cannot be written is kept
/// as `problem` (the first one), for the run to report and count in its exit status.
///
/// Opened by root (a manual run on a server whose cron runs as a service user), a log file that
/// root owns goes to its folder's owner: left to root, it would make every later run of the
/// service user fail to open it.
final class LogFileSink: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let lock = Lock()
    private var firstProblem: String?

    struct OpenError: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String) throws {
        self.path = path
        do {
            try AtomicFile.createDirectories(FileIO.directoryName(of: path))
        } catch {
            throw OpenError(description: "cannot create the log file's folder: \(error)")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw OpenError(description: "cannot open the log file \(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        if geteuid() == 0 { Self.giveToFolderOwner(fd, folder: FileIO.directoryName(of: path)) }
    }

    /// `fchown`s the open file `fd` to the owner and group of `folder` when root owns the file
    /// and not the folder; changes nothing otherwise (or when the folder cannot be read).
    static func giveToFolderOwner(_ fd: Int32, folder: String) {
        var file = stat(), parent = stat()
        guard fstat(fd, &file) == 0, file.st_uid == 0, stat(folder.isEmpty ? "." : folder, &parent) == 0,
              parent.st_uid != 0 else { return }
        _ = fchown(fd, parent.st_uid, parent.st_gid)
    }

    deinit { close(fd) }

    func write(_ line: String) {
        if let code = ConsoleWriter.write(fd: fd, line + "\n") {
            lock.withLock {
                if firstProblem == nil { firstProblem = "cannot write the log file \(path): \(String(cString: strerror(code)))" }
            }
        }
    }

    /// Why a line could not be written (the first failure), nil when every line was.
    var problem: String? { lock.withLock { firstProblem } }
}
