import FeedCrawlKit
import Glibc

/// A log file opened for appending (`O_APPEND`, created 0644). One `write(2)` per line, so
/// lines from concurrent runs or a `logrotate copytruncate` never interleave mid-line.
final class LogFileSink: @unchecked Sendable {
    let path: String
    private let fd: Int32

    struct OpenError: Error, CustomStringConvertible {
        var description: String
    }

    init(path: String) throws {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw OpenError(description: "cannot open the log file \(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }

    deinit { close(fd) }

    func write(_ line: String) {
        ConsoleWriter.write(fd: fd, line + "\n")
    }
}
