import FeedCrawlKit
import Glibc
import FeedCrawlSupport

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
/// The terminal may have been narrowed since a frame was drawn (SIGWINCH): a terminal that
/// re-wraps its lines (tmux, VTE, iTerm2, kitty, Alacritty, Windows Terminal...) now shows each
/// line of that frame on `ceil(length / columns)` rows, with the cursor on the last row of the
/// last one. Every move to the display's first line counts rows so, at the width the terminal
/// has now, and erases all of them, so no wrapped piece of an old frame stays on screen.
/// (A terminal that cuts long lines instead of re-wrapping them, such as xterm, keeps one row
/// per line: there such a redraw also erases as many lines above the display as the count
/// exceeds.)
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

    /// The characters this writer's text is drawn with: `processGlyphs`.
    let glyphs = ConsoleWriter.processGlyphs
    private let lock = Lock()
    /// Lines of the live display now on screen; the cursor is at the end of the last one.
    private var shown: [String] = []

    /// Writes a permanent line, above the live display if one is shown.
    func line(_ text: String) {
        lock.withLock { _ = Self.write(fd: 2, erase() + glyphs.applied(to: text) + "\n" + Self.draw(shown, over: 0)) }
    }

    /// Replaces the live display with `lines` (each must fit the terminal's width).
    func show(_ lines: [String]) {
        let lines = lines.map(glyphs.applied(to:))
        lock.withLock {
            let rows = rowsShown()
            guard lines != shown || rows != shown.count else { return }
            // Lines the terminal wrapped since they were drawn are erased first, all of them.
            let out = rows == shown.count
                ? Self.toFirstLine(rows) + Self.draw(lines, over: rows)
                : erase() + Self.draw(lines, over: 0)
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
            Self.write(fd: 2, erase() + glyphs.applied(to: text) + "\n")
            shown = []
        }
    }

    /// Rows the lines shown take on the terminal now: one each unless the terminal became
    /// narrower than a line, which it then wraps onto `ceil(length / columns)` rows.
    private func rowsShown() -> Int {
        let width = max(1, Self.width())
        return shown.reduce(0) { $0 + max(1, ($1.count + width - 1) / width) }
    }

    /// Erases the rows shown, one by one, and leaves the cursor at the start of the first.
    ///
    /// Moving up stops at the screen's top row and moving down at its bottom row, never
    /// scrolling: going down and back up by the same count ends on the row it started from.
    /// When re-wrapping pushed the display's first rows into the scrollback (tmux does when the
    /// display starts at the top row), the move up stops at the top row, the display's first
    /// row on screen; the rows erased past its last row are below the display, blank.
    private func erase() -> String {
        guard !shown.isEmpty else { return "" }
        let rows = rowsShown()
        return Self.toFirstLine(rows) + Self.eraseLine + Self.eraseBelow(rows - 1)
    }

    private static let eraseLine = "\u{1B}[2K"
    /// Cursor one line down; unlike a newline it never scrolls.
    private static let down = "\u{1B}[1B"

    /// Erases the `count` lines below the cursor's and comes back up to its line.
    private static func eraseBelow(_ count: Int) -> String {
        count > 0 ? String(repeating: down + eraseLine, count: count) + "\u{1B}[\(count)A" : ""
    }

    /// From the end of the last of `count` display rows to the start of the first.
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
        // Old lines the new display does not reach: erase them and come back.
        if lines.isEmpty { return old > 0 ? eraseLine + eraseBelow(old - 1) : out }
        return out + eraseBelow(old - lines.count)
    }

    /// Columns of the terminal on `fd` (default stderr), else `COLUMNS`, else 80.
    static func width(fd: Int32 = 2) -> Int {
        var size = winsize()
        if ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
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
