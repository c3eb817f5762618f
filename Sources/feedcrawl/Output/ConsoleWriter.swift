import Glibc

/// The only writer of stderr while a crawl runs: permanent lines and, on a terminal, a live
/// display of a few lines kept at the bottom and redrawn in place. Each call is one `write(2)`,
/// under a lock, so lines from many threads never interleave and the display never tears.
final class ConsoleWriter: @unchecked Sendable {
    private let lock = Lock()
    /// Lines of the live display now on screen.
    private var shown: [String] = []

    /// Writes a permanent line, above the live display if one is shown.
    func line(_ text: String) {
        lock.withLock {
            var out = erase()
            out += text + "\n"
            out += shown.joined(separator: "\n")
            Self.write(fd: 2, out)
        }
    }

    /// Replaces the live display with `lines` (each must fit the terminal's width).
    func show(_ lines: [String]) {
        lock.withLock {
            guard lines != shown else { return }
            let out = erase() + lines.joined(separator: "\n")
            shown = lines
            Self.write(fd: 2, out)
        }
    }

    /// Removes the live display, leaving the cursor where it started.
    func clear() {
        lock.withLock {
            guard !shown.isEmpty else { return }
            Self.write(fd: 2, erase())
            shown = []
        }
    }

    /// Escape codes that move to the display's first line and clear to the end of the screen.
    private func erase() -> String {
        guard !shown.isEmpty else { return "" }
        return "\r" + (shown.count > 1 ? "\u{1B}[\(shown.count - 1)A" : "") + "\u{1B}[J"
    }

    /// Columns of the terminal on stderr, else `COLUMNS`, else 80.
    static func width() -> Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), columns > 0 { return columns }
        return 80
    }

    /// Whether `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Writes all of `text` to `fd`, retrying on EINTR; gives up on other errors and returns
    /// their `errno` (nil when all was written). Console callers ignore it.
    @discardableResult
    static func write(fd: Int32, _ text: String) -> Int32? {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}
