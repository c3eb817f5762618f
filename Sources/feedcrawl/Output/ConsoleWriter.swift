import FeedCrawlKit
import Glibc

/// The only writer of stderr while a crawl runs: permanent lines and, on a terminal, a live
/// display of a few lines kept at the bottom and redrawn in place. Each call is one `write(2)`,
/// under a lock, so lines from many threads never interleave and the display never tears.
///
/// Redrawing moves the cursor up to the display's first line and rewrites each line after
/// erasing it (`ESC[2K`); it never clears to the end of the screen (`ESC[J`), which terminals
/// such as tmux treat, from the top row, as clearing the screen, pushing the old frame into
/// their scrollback, and it never writes a newline below the display's last line, so a frame
/// scrolls nothing into the scrollback unless the display grows.
///
/// Text goes out with `glyphs` applied: under a locale that is not UTF-8, feedcrawl's own
/// non-ASCII characters become ASCII substitutes.
final class ConsoleWriter: @unchecked Sendable {
    /// The characters for the locale of this process (`TerminalGlyphs.forLocale`), decided once.
    static let processGlyphs: TerminalGlyphs = {
        var locale: [String: String] = [:]
        for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = getenv(name) { locale[name] = String(cString: value) }
        }
        return .forLocale(locale)
    }()

    /// The characters this writer's text is drawn with; default `processGlyphs`.
    let glyphs: TerminalGlyphs
    private let lock = Lock()
    /// Lines of the live display now on screen; the cursor is at the end of the last one.
    private var shown: [String] = []

    init(glyphs: TerminalGlyphs = ConsoleWriter.processGlyphs) {
        self.glyphs = glyphs
    }

    /// Writes a permanent line, above the live display if one is shown.
    func line(_ text: String) {
        lock.withLock {
            var out = erase()
            out += glyphs.applied(to: text) + "\n"
            out += Self.draw(shown, over: 0)
            Self.write(fd: 2, out)
        }
    }

    /// Replaces the live display with `lines` (each must fit the terminal's width).
    func show(_ lines: [String]) {
        let lines = lines.map(glyphs.applied(to:))
        lock.withLock {
            guard lines != shown else { return }
            let out = Self.toFirstLine(shown.count) + Self.draw(lines, over: shown.count)
            shown = lines
            Self.write(fd: 2, out)
        }
    }

    /// Removes the live display, leaving the cursor at the start of its first line.
    func clear() {
        lock.withLock {
            guard !shown.isEmpty else { return }
            Self.write(fd: 2, erase())
            shown = []
        }
    }

    /// Removes the live display and writes `text` as a permanent line in its place; the display
    /// stays off until the next `show`. Nothing is left of it on screen.
    func replaceDisplay(with text: String) {
        lock.withLock {
            let out = erase() + glyphs.applied(to: text) + "\n"
            shown = []
            Self.write(fd: 2, out)
        }
    }

    /// Erases the lines shown, one by one, and leaves the cursor at the start of the first.
    private func erase() -> String {
        guard !shown.isEmpty else { return "" }
        var out = Self.toFirstLine(shown.count) + Self.eraseLine
        for _ in 1..<shown.count { out += Self.down + Self.eraseLine }
        if shown.count > 1 { out += "\u{1B}[\(shown.count - 1)A" }
        return out
    }

    private static let eraseLine = "\u{1B}[2K"
    /// Cursor one line down; unlike a newline it never scrolls.
    private static let down = "\u{1B}[1B"

    /// From the end of the last of `count` display lines to the start of the first.
    private static func toFirstLine(_ count: Int) -> String {
        guard count > 0 else { return "" }
        return "\r" + (count > 1 ? "\u{1B}[\(count - 1)A" : "")
    }

    /// Writes `lines` from the start of the cursor's line, each over an erased line; `over` lines
    /// are on screen there now: a newline moves onto them without scrolling, and those the new
    /// display does not reach are erased. Ends at the end of the last line written.
    private static func draw(_ lines: [String], over old: Int) -> String {
        var out = ""
        for (index, line) in lines.enumerated() {
            if index > 0 { out += "\r\n" }
            out += eraseLine + line
        }
        let below = lines.isEmpty ? old : old - lines.count
        guard below > 0 else { return out }
        // Old lines the new display does not reach: erase them and come back.
        if lines.isEmpty {
            out += eraseLine
            for _ in 1..<old { out += down + eraseLine }
            if old > 1 { out += "\u{1B}[\(old - 1)A" }
        } else {
            for _ in 0..<below { out += down + eraseLine }
            out += "\u{1B}[\(below)A"
        }
        return out
    }

    /// Columns of the terminal on stderr, else `COLUMNS`, else 80.
    static func width() -> Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS"), let columns = Int(String(cString: text)), columns > 0 { return columns }
        return 80
    }

    /// Whether `fd` is a terminal that can be drawn on: a terminal, and `TERM` is not `dumb`
    /// (a dumb terminal gets plain lines, as a pipe does).
    static func isTerminal(_ fd: Int32) -> Bool {
        guard isatty(fd) == 1 else { return false }
        if let term = getenv("TERM"), String(cString: term) == "dumb" { return false }
        return true
    }

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
