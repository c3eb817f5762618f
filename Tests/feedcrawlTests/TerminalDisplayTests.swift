import Foundation
import Testing
import TestSupport

/// The live display on a real terminal: feedcrawl runs in a tmux session of a fixed size
/// against a slow demo feed; the test reads the screen (capture-pane) while it runs, sends
/// Ctrl-C (send-keys) and reads the screen and the scrollback after it exits, and reads what
/// the program wrote to the terminal byte for byte (pipe-pane). tmux is required: without it
/// these tests fail (scripts/deps --tests installs it).
@Suite("feedcrawl on a terminal (tmux)", .serialized)
struct TerminalDisplayTests {
    /// One tmux server on its own socket (`-L`), killed at the end, with one session.
    final class Tmux {
        static let path: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }

        let socket = "feedcrawl-test-" + String(UUID().uuidString.prefix(8))
        let session = "crawl"
        let folder = BinaryRunner.temporaryDirectory()
        /// The server's socket, removed at the end.
        var socketPath = ""
        /// The server's pid (0 until it started).
        var serverPID: Int32 = 0
        /// tmux commands that failed, with what they said.
        var failures: [String] = []

        /// Runs `tmux -L socket ARGS` to its end; its stdout.
        @discardableResult
        func run(_ arguments: [String]) async throws -> String {
            let child = try ChildProcess(
                executable: Self.path!, arguments: ["-u", "-L", socket] + arguments,
                environment: ChildProcess.environment(["TMUX": nil, "LC_ALL": "C.UTF-8"]))
            let exit = await child.exit(timeout: 20)
            if exit.status != 0 { failures.append("tmux \(arguments): \(String(decoding: exit.stderr, as: UTF8.self))") }
            return String(decoding: exit.stdout, as: UTF8.self)
        }

        /// Starts the session, `columns` x `rows`, running `command` in `sh`; what it writes to
        /// the terminal is appended to `raw` as it goes.
        func start(columns: Int, rows: Int, environment: [String: String], command: String) async throws {
            // The shell stays when Ctrl-C stops feedcrawl (a trap with a command: feedcrawl gets
            // the default disposition) to say how it ended.
            var script = "#!/bin/sh\ntrap 'true' INT\n"
            for (key, value) in environment.sorted(by: { $0.key < $1.key }) { script += "export \(key)='\(value)'\n" }
            script += command + "\necho \"feedcrawl exited $?\"\nexec sleep 600\n"
            try script.write(toFile: folder + "/run.sh", atomically: true, encoding: .utf8)
            try await run(["-f", "/dev/null", "new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows),
                     "sh " + folder + "/run.sh"])
            try await run(["pipe-pane", "-t", session, "-o", "cat >> " + folder + "/raw"])
            socketPath = try await run(["display-message", "-p", "-t", session, "#{socket_path}"])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            serverPID = Int32(try await run(["display-message", "-p", "#{pid}"])
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }

        /// The screen now (visible rows only), or with the scrollback too; a line the terminal
        /// wrapped is one line (`-J`), so a display line that wrapped shows as too long.
        func capture(scrollback: Bool = false) async throws -> [String] {
            let text = try await run(["capture-pane", "-p", "-J", "-t", session] + (scrollback ? ["-S", "-", "-E", "-"] : []))
            var lines = text.components(separatedBy: "\n")
            while lines.last?.trimmingCharacters(in: .whitespaces) == "" && !lines.isEmpty { lines.removeLast() }
            return lines
        }

        /// Lines of scrollback (above the screen).
        func historySize() async throws -> Int {
            Int(try await run(["display-message", "-p", "-t", session, "#{history_size}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        /// What the program wrote to the terminal.
        var raw: String { (try? String(contentsOfFile: folder + "/raw", encoding: .utf8)) ?? "" }

        /// What the program wrote to the terminal, byte for byte.
        var rawBytes: [UInt8] { FileManager.default.contents(atPath: folder + "/raw").map { [UInt8]($0) } ?? [] }

        /// Stops the server by its pid, with SIGKILL: the test runner may start it with SIGTERM
        /// blocked (a mask it keeps), and a thread left to follow SIGTERM up with SIGKILL 2 s
        /// later died with the test process after the last tests (servers were left behind).
        /// The pane's processes go with the terminal; then the files are removed.
        func stop() {
            if serverPID > 1 { kill(serverPID, SIGKILL) }
            if socketPath.hasSuffix("/" + socket) { unlink(socketPath) }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// A line of the live display: a source's or the totals, made only of whole fields.
    static func isProgressLine(_ line: String) -> Bool {
        line.hasPrefix("items ") && line.contains(" done") || line.range(of: #"^\S+\s+(page \d|\d+ listed|\d+ done)"#, options: .regularExpression) != nil
    }

    /// Whether `line`, a line of the live display, is whole fields only: nothing cut; what is
    /// left between the fields is `separators` (default those of a UTF-8 locale).
    static func isWholeFields(_ line: String, separators: String = " ·│") -> Bool {
        let field = #"(page \d+(/\d+)?|\d+ listed|\d+ done|\d+ failed|SOURCE FAILED|\d+ queued|items \d+ done|[\d.]+ (B|KiB|MiB|GiB)/s|[\d.]+ (B|KiB|MiB|GiB)|-- B/s|\d+:\d\d(:\d\d)?)"#
        let source = #"^(launches|pixabay|items \d+ done)"#
        let rest = line.replacingOccurrences(of: source, with: "", options: .regularExpression)
            .replacingOccurrences(of: field, with: "", options: .regularExpression)
        return rest.allSatisfy { separators.contains($0) }
    }

    /// Runs a slow crawl in a `columns` x 30 session, watches the display, presses Ctrl-C and
    /// checks what is left. `whileShown` (default nothing) runs once the display is up, before
    /// the frames are taken.
    func crawlAndInterrupt(
        columns: Int, allVariants: Bool = false, extraEnvironment: [String: String] = [:], before: String = "",
        whileShown: (Tmux) async throws -> Void = { _ in }
    ) async throws -> (Tmux, [String], [[String]]) {
        let tmux = Tmux()
        // Each image takes 4 s: the display is up for as long as the test needs.
        let feed = try SlowFeed(bytesPerSecond: 300)
        defer { feed.stop() }
        let out = OutputFolder()
        defer { out.remove() }
        let arguments = feed.arguments(out: out.path, allVariants: allVariants).map { "'\($0)'" }.joined(separator: " ")
        try await tmux.start(
            columns: columns, rows: 30, environment: feed.environment.merging(extraEnvironment) { $1 },
            command: before + "'\(BinaryRunner.binaryPath)' \(arguments)")
        var frames: [[String]] = []
        let shown = await waitUntil(seconds: 20) {
            let screen = (try? await tmux.capture()) ?? []
            return screen.contains { $0.hasPrefix("items ") } && feed.images >= 4
        }
        let screen = (try? await tmux.capture()) ?? []
        #expect(shown, "no live display: \(screen)")
        try await whileShown(tmux)
        for _ in 0..<10 {
            frames.append(try await tmux.capture())
            try await Task.sleep(for: .milliseconds(150))
        }
        try await tmux.run(["send-keys", "-t", tmux.session, "C-c"])
        let exited = await waitUntil(seconds: 30) { ((try? await tmux.capture()) ?? []).contains { $0.hasPrefix("feedcrawl exited") } }
        let last = (try? await tmux.capture()) ?? []
        #expect(exited, "feedcrawl did not exit: \(last)")
        return (tmux, try await tmux.capture(scrollback: true), frames)
    }

    /// What must be left after Ctrl-C: the notice, the summary, how to finish; no display.
    /// `history`: the lines the scrollback may hold (default 0: the display started at the top
    /// row and everything printed fits the screen).
    func checkEnd(_ all: [String], tmux: Tmux, history: ClosedRange<Int> = 0...0) async throws {
        let text = all.joined(separator: "\n")
        #expect(tmux.failures.isEmpty, "\(tmux.failures)")
        #expect(!all.contains(where: Self.isProgressLine), "progress lines left:\n\(text)")
        let notice = all.firstIndex { $0.contains("SIGINT received: stopping") }
        let summary = all.firstIndex { $0.range(of: #"^feedcrawl: \d+ items: "#, options: .regularExpression) != nil }
        let next = all.firstIndex { $0.contains("run the same command again") }
        #expect(notice != nil && summary != nil && next != nil, "\(text)")
        if let notice, let summary, let next { #expect(notice < summary && summary < next, "\(text)") }
        #expect(all.contains { $0.hasPrefix("feedcrawl exited 130") }, "\(text)")
        // The notice is a line of its own, not glued to a progress line.
        if let notice { #expect(all[notice].hasPrefix("feedcrawl: SIGINT"), "\(all[notice])") }
        // No frame went into the scrollback, and each line left is there once.
        #expect(history.contains(try await tmux.historySize()), "scrollback:\n\(text)")
        for line in [notice, summary, next].compactMap({ $0 }).map({ all[$0] }) {
            #expect(all.filter { $0 == line }.count == 1, "\(line)")
        }
        // No colour, and no clearing to the end of the screen.
        let raw = tmux.raw
        #expect(!raw.isEmpty)
        #expect(raw.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression) == nil, "a colour escape was written")
        #expect(!raw.contains("\u{1B}[J") && !raw.contains("\u{1B}[0J") && !raw.contains("\u{1B}[2J"))
    }

    @Test func ctrlCLeavesTheNoticeTheSummaryAndHowToFinishAtOneHundredColumns() async throws {
        try #require(Tmux.path != nil, "tmux is not installed (scripts/deps --tests installs it)")
        try await BinaryTestGate.run {
            let (tmux, all, frames) = try await crawlAndInterrupt(columns: 100, allVariants: true, extraEnvironment: ["NO_COLOR": "1"])
            defer { tmux.stop() }
            for frame in frames {
                let display = frame.filter(Self.isProgressLine)
                #expect(display.count == 3, "\(frame)")
                #expect(display.allSatisfy { Self.isWholeFields($0) }, "\(display)")
                #expect(frame.first.map(Self.isProgressLine) == true, "the display starts at the top row: \(frame)")
            }
            try await checkEnd(all, tmux: tmux)
            // The display counts items, as the summary does: once every page is listed, its
            // done + queued + failed is the summary's item count (two image variants each: were
            // images counted, it would be twice that).
            let summary = try #require(all.first { $0.hasPrefix("feedcrawl: ") && $0.contains(" items: ") })
            let items = try #require(Int(summary.dropFirst(11).prefix { $0.isNumber }))
            let listedAll = frames.filter { frame in frame.filter { $0.contains("page 2/2") }.count == 2 }
            #expect(!listedAll.isEmpty, "no frame after the last page: \(frames)")
            for frame in listedAll {
                let totals = try #require(frame.first { $0.hasPrefix("items ") })
                let numbers = totals.matches(of: /(\d+) (done|queued|failed)/).map { Int($0.output.1)! }
                #expect(numbers.count == 3 && numbers.reduce(0, +) == items, "display \(totals), summary \(summary)")
                let listed = frame.compactMap { line in line.firstMatch(of: /(\d+) listed/).map { Int($0.output.1)! } }
                #expect(listed.reduce(0, +) == items, "display \(frame), summary \(summary)")
            }
        }
    }

    /// The display drawn on the last rows, under 40 lines printed before: what scrolls into
    /// the scrollback is those lines and the notice, never a frame.
    @Test func fromTheBottomRowOnlyPermanentLinesScroll() async throws {
        try #require(Tmux.path != nil, "tmux is not installed (scripts/deps --tests installs it)")
        try await BinaryTestGate.run {
            let (tmux, all, frames) = try await crawlAndInterrupt(columns: 100, before: "seq 1 40; ")
            defer { tmux.stop() }
            #expect(frames.allSatisfy { $0.count == 30 && $0.suffix(3).allSatisfy(Self.isProgressLine) }, "\(frames)")
            // 40 numbers + 5 lines printed after them on a 30-row screen: about 15 in the scrollback.
            try await checkEnd(all, tmux: tmux, history: 10...20)
            #expect(all.prefix(40) == ArraySlice((1...40).map(String.init)), "\(all.prefix(40))")
        }
    }

    @Test func atFortyColumnsEveryLineIsWholeFields() async throws {
        try #require(Tmux.path != nil, "tmux is not installed (scripts/deps --tests installs it)")
        try await BinaryTestGate.run {
            let (tmux, all, frames) = try await crawlAndInterrupt(columns: 40)
            defer { tmux.stop() }
            for frame in frames {
                let display = frame.filter(Self.isProgressLine)
                #expect(display.count >= 3, "\(frame)")
                for line in frame where Self.isProgressLine(line) || line.contains("B/s") {
                    #expect(line.count <= 39, "\(line)")
                    #expect(Self.isWholeFields(line), "cut: \(line)")
                }
            }
            try await checkEnd(all, tmux: tmux)
        }
    }

    /// Under the C locale (`LC_ALL=C`: the terminal's character set is not known to be UTF-8)
    /// every byte written to the terminal is ASCII: the display's separators are `-` and `|`.
    @Test func underTheCLocaleEveryByteWrittenIsASCII() async throws {
        try #require(Tmux.path != nil, "tmux is not installed (scripts/deps --tests installs it)")
        try await BinaryTestGate.run {
            let (tmux, all, frames) = try await crawlAndInterrupt(columns: 100, extraEnvironment: ["LC_ALL": "C"])
            defer { tmux.stop() }
            for frame in frames {
                let display = frame.filter(Self.isProgressLine)
                #expect(display.count == 3, "\(frame)")
                #expect(display.allSatisfy { Self.isWholeFields($0, separators: " -|") }, "\(display)")
            }
            #expect(frames.contains { $0.contains { $0.hasPrefix("items ") && $0.contains(" queued - ") && $0.contains(" | ") } },
                    "no ASCII totals line: \(frames)")
            try await checkEnd(all, tmux: tmux)
            let bytes = tmux.rawBytes
            let first = bytes.firstIndex { $0 >= 0x80 }
            #expect(first == nil, "not ASCII: \(first.map { String(decoding: bytes[max(0, $0 - 40)..<min(bytes.count, $0 + 40)], as: UTF8.self) } ?? "")")
        }
    }

    /// The terminal narrowed mid-run (tmux re-wraps the lines on screen, as most terminals do):
    /// the display is redrawn at the new width with nothing left of the wider frames on screen.
    /// Drawn at the bottom, under 40 lines printed before, nothing is left in the scrollback
    /// either; drawn from the top row, tmux itself moves the first rows of the re-wrapped frame
    /// into its scrollback, out of the program's reach: there the screen must be clean.
    @Test(arguments: [true, false])
    func aNarrowedTerminalKeepsNoStaleLine(displayAtTheBottom: Bool) async throws {
        try #require(Tmux.path != nil, "tmux is not installed (scripts/deps --tests installs it)")
        try await BinaryTestGate.run {
            var narrowed: [[String]] = []
            // Every line of a frame once the terminal is `columns` wide: whole fields within
            // the width, each source once, nothing else on screen but the lines printed before.
            func check(_ frame: [String], columns: Int) {
                let shown = frame.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                let display = shown.filter { Self.isProgressLine($0) || $0.contains("B/s") }
                #expect(shown.allSatisfy { Int($0) != nil || display.contains($0) }, "a stale line at \(columns) columns: \(frame)")
                #expect(display.allSatisfy { $0.count <= columns - 1 && Self.isWholeFields($0) }, "\(columns) columns: \(display)")
                for prefix in ["pixabay ", "launches ", "items "] {
                    #expect(display.filter { $0.hasPrefix(prefix) }.count == 1, "\(columns) columns: \(frame)")
                }
            }
            let before = displayAtTheBottom ? "seq 1 40; " : ""
            let (tmux, all, frames) = try await crawlAndInterrupt(columns: 100, before: before) { tmux in
                for columns in [50, 30] {
                    // Check that tmux resized: an old tmux needs `refresh-client -C` instead.
                    try await tmux.run(["resize-window", "-t", tmux.session, "-x", String(columns)])
                    let width = try await tmux.run(["display-message", "-p", "-t", tmux.session, "#{window_width}"])
                    #expect(width.trimmingCharacters(in: .whitespacesAndNewlines) == String(columns))
                    try await Task.sleep(for: .milliseconds(400))
                    for _ in 0..<4 {
                        let frame = try await tmux.capture()
                        check(frame, columns: columns)
                        narrowed.append(frame)
                        try await Task.sleep(for: .milliseconds(150))
                    }
                }
            }
            defer { tmux.stop() }
            #expect(narrowed.count == 8)
            for frame in frames { check(frame, columns: 30) }
            if displayAtTheBottom {
                // 40 numbers, the wider frames re-wrapped and the lines after them on 30 rows:
                // some of the numbers went into the scrollback, no frame did.
                try await checkEnd(all, tmux: tmux, history: 10...40)
            } else {
                let screen = try await tmux.capture()
                #expect(!screen.contains(where: Self.isProgressLine), "progress lines left:\n\(screen.joined(separator: "\n"))")
                for text in ["feedcrawl: SIGINT received: stopping", "run the same command again", "feedcrawl exited 130"] {
                    #expect(screen.filter { $0.contains(text) }.count == 1, "\(text):\n\(screen.joined(separator: "\n"))")
                }
                #expect(tmux.failures.isEmpty, "\(tmux.failures)")
            }
        }
    }

    @Test func aDumbTerminalGetsPlainLinesWithoutCursorMovement() async throws {
        try #require(Tmux.path != nil, "tmux is not installed (scripts/deps --tests installs it)")
        try await BinaryTestGate.run {
            let tmux = Tmux()
            defer { tmux.stop() }
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let arguments = feed.arguments(out: out.path).map { "'\($0)'" }.joined(separator: " ")
            try await tmux.start(
                columns: 100, rows: 30, environment: feed.environment.merging(["TERM": "dumb"]) { $1 },
                command: "'\(BinaryRunner.binaryPath)' --progress-interval 0.2s \(arguments)")
            let exited = await waitUntil(seconds: 30) { ((try? await tmux.capture()) ?? []).contains { $0.hasPrefix("feedcrawl exited") } }
            let screen = (try? await tmux.capture()) ?? []
            #expect(exited, "\(screen)")
            let raw = tmux.raw
            #expect(!raw.contains("\u{1B}"), "escape codes on a dumb terminal: \(raw.debugDescription.prefix(300))")
            #expect(raw.contains("feedcrawl: ") && raw.contains(" items: "), "\(raw)")
            #expect(tmux.failures.isEmpty, "\(tmux.failures)")
        }
    }
}
