import Dispatch
import FeedCrawlKit
import FoundationEssentials
import Glibc
import FeedCrawlSupport

/// Turns a crawl's events into what the user sees: the live display, log records (stderr or a
/// log file, text or JSON), the summary and `--json`. Events are counted under a lock and
/// rendered on a timer, never per event, so the image path stays cheap.
///
/// What goes where is decided once, from the options and whether stderr is a terminal:
/// - Live display (pages per source, images, bytes, rate, elapsed, redrawn in place): stderr is
///   a terminal and `--progress auto` (unless JSON logs go to stderr), or `--progress always`;
///   never with `--quiet`.
/// - Periodic progress records (every `--progress-interval`): when there is no live display,
///   or there is a log file; never with `--progress never`.
/// - Log records go to `--log-file` (appended) or to stderr, at `info` and up (`debug` with
///   `--verbose`). With a log file, stderr still gets warnings, errors and the summary as text.
/// - `--quiet`: nothing on stderr unless the run fails; then its warnings, errors and the summary.
final class Reporter: @unchecked Sendable {
    let ux: UXOptions
    let live: Bool
    let progressRecords: Bool
    let threshold: LogLevel
    let progress: CrawlProgress
    private let console = ConsoleWriter()
    private let logFile: LogFileSink?
    private let lock = Lock()
    private var held: [String] = []
    private var heldDropped = 0
    private static let heldLimit = 2000

    private let tickerQueue = DispatchQueue(label: "feedcrawl.progress")
    private var ticker: DispatchSourceTimer?
    /// SIGWINCH while the live display is up: redraws it at the terminal's new width at once.
    private var resize: DispatchSourceSignal?
    private var rate = RateMeter()
    private var nextRecord: Double

    /// - Throws: when the log file cannot be opened.
    init(_ ux: UXOptions, stderrIsTerminal: Bool, sources: [(name: String, pages: Int)]) throws {
        self.ux = ux
        let jsonOnStderr = ux.logFormat == .json && ux.logFile == nil
        switch ux.progress {
        case .always: live = !ux.quiet
        case .auto: live = !ux.quiet && stderrIsTerminal && !jsonOnStderr
        case .never: live = false
        }
        progressRecords = ux.progress != .never && (!live || ux.logFile != nil)
        threshold = ux.verbose ? .debug : .info
        progress = CrawlProgress(sources: sources)
        logFile = try ux.logFile.map { try LogFileSink(path: $0) }
        nextRecord = ux.progressInterval
    }

    // MARK: events (any thread)

    /// Counts the event and logs what deserves a line. Cheap: no formatting unless logged.
    func handle(_ event: CrawlEvent) {
        progress.record(event)
        switch event {
        case .pageFetched(let source, let page, let items):
            route(LogRecord(level: .info, source: source, event: "page", message: "page \(page): \(items) items",
                            fields: [LogField("page", page), LogField("items", items)]), chatter: true)
        case .warning(let source, let message):
            route(LogRecord(level: .warning, source: source, event: "warning", message: message))
        case .sourceFailed(let source, let message):
            route(LogRecord(level: .error, source: source, event: "source-failed", message: message))
        case .retrying(let url, let attempt, let delay, let reason, let source):
            let seconds = (delay * 100).rounded() / 100
            route(LogRecord(level: .info, source: source, event: "retry", message: "retrying in \(seconds) s (attempt \(attempt + 1)): \(reason): \(url)",
                            fields: [LogField("url", url), LogField("attempt", attempt + 1), LogField("delay", delay), LogField("reason", reason)]),
                  chatter: true)
        case .imageFetched(let url, let outcome, let seconds, let owner):
            guard threshold <= .debug else { return }
            route(Self.transferRecord(url: url, outcome: outcome, seconds: seconds, owner: owner), chatter: true)
        case .hostSlowed(let host, let concurrency, let interval, let status):
            let spacing = DurationParser.format(interval)
            route(LogRecord(
                level: .warning, event: "host-slowed",
                message: "\(host) answered HTTP \(status) without Retry-After: slowed to \(concurrency) transfer"
                    + "\(concurrency == 1 ? "" : "s") at once, \(spacing) apart",
                fields: [LogField("host", host), LogField("concurrency", concurrency), LogField("interval", interval),
                         LogField("status", status)]))
        case .storage(let message, let detail):
            route(LogRecord(level: detail ? .debug : .info, event: "storage", message: message))
        case .itemFinished:
            break
        }
    }

    static func transferRecord(url: String, outcome: ImageRecord.Outcome, seconds: Double, owner: ImageOwner? = nil) -> LogRecord {
        var message = "image \(outcome.status.rawValue)"
        var fields = [LogField("url", url), LogField("status", outcome.status.rawValue), LogField("seconds", seconds)]
        if let owner {
            message = "\(owner.source) \(owner.id) \(owner.variant): " + message
            fields += [LogField("id", owner.id), LogField("variant", owner.variant)]
            if owner.sharedBy > 1 { fields.append(LogField("sharedBy", owner.sharedBy)) }
        }
        if let bytes = outcome.bytes, outcome.status == .downloaded {
            message += " \(ByteSize.format(bytes))"
            fields.append(LogField("bytes", bytes))
        }
        if let width = outcome.width, let height = outcome.height {
            message += " \(width)x\(height)"
            fields += [LogField("width", width), LogField("height", height)]
        }
        message += " in \((seconds * 1000).rounded() / 1000) s"
        if let error = outcome.error {
            message += " (\(error))"
            fields.append(LogField("error", error))
        }
        return LogRecord(level: .debug, source: owner?.source, event: "image", message: message + ": " + url, fields: fields)
    }

    /// A run-level line for people (`info`): not shown with --quiet.
    func notice(_ message: String) {
        route(LogRecord(level: .info, event: "notice", message: message))
    }

    /// Why the log file could not be written (the first failure), nil when it could or there is none.
    var logFileProblem: String? { logFile?.problem }

    // MARK: lifecycle

    /// Starts the live display and the periodic progress records, as `live` and `progressRecords` say.
    func start() {
        guard live || progressRecords else { return }
        let timer = DispatchSource.makeTimerSource(queue: tickerQueue)
        let period = live ? 0.1 : min(0.5, ux.progressInterval)
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler { [weak self] in self?.tick() }
        lock.withLock { ticker = timer }
        timer.resume()
        guard live else { return }
        // A resized terminal gets a frame at its new width now rather than at the next tick.
        let source = SignalWatcher.watch(SIGWINCH, queue: tickerQueue) { [weak self] in
            guard let self else { return }
            self.draw(self.progress.snapshot())
        }
        lock.withLock { resize = source }
    }

    private func tick() {
        let snapshot = progress.snapshot()
        rate.add(time: snapshot.elapsed, bytes: snapshot.bytes)
        if live { draw(snapshot) }
        if progressRecords, snapshot.elapsed >= nextRecord {
            nextRecord = snapshot.elapsed + ux.progressInterval
            route(Self.progressRecord(snapshot, rate: rate.bytesPerSecond))
        }
    }

    /// Shows `snapshot` on the live display, at the terminal's width now (on the ticker's queue).
    private func draw(_ snapshot: ProgressSnapshot) {
        console.show(ProgressText.lines(
            snapshot, bytesPerSecond: rate.bytesPerSecond, width: ConsoleWriter.width(), glyphs: console.glyphs))
    }

    static func progressRecord(_ snapshot: ProgressSnapshot, rate: Double?) -> LogRecord {
        var fields = [
            LogField("done", snapshot.done), LogField("queued", snapshot.queued), LogField("failed", snapshot.problems),
            LogField("bytes", snapshot.bytes), LogField("elapsed", snapshot.elapsed),
        ]
        if let rate { fields.append(LogField("bytesPerSecond", rate.rounded())) }
        for source in snapshot.sources { fields.append(LogField("pages." + source.name, source.pagesFetched)) }
        return LogRecord(level: .info, event: "progress", message: "progress: " + ProgressText.logLine(snapshot, bytesPerSecond: rate),
                         fields: fields)
    }

    /// A signal asked the run to stop: the live display goes for good (a tick in progress
    /// ends first) and `message` takes its place, a permanent line on stderr whatever the
    /// options, as the run may take a moment to wind down.
    func interrupted(_ message: String) {
        stopTicker()
        console.replaceDisplay(with: message)
    }

    /// Stops the display and waits for a tick in progress to end.
    private func stop() {
        stopTicker()
        console.clear()
    }

    private func stopTicker() {
        let (running, watching): (DispatchSourceTimer?, DispatchSourceSignal?) = lock.withLock {
            defer { (ticker, resize) = (nil, nil) }
            return (ticker, resize)
        }
        guard running != nil || watching != nil else { return }
        running?.cancel()
        watching?.cancel()
        tickerQueue.sync {}
    }

    /// Ends a run that took place: warnings the sources collected, storage problems, the summary
    /// (held lines too under --quiet when `status` is not 0), and `--json` on stdout. `hint`
    /// (default none) ends the summary line: what to do next, e.g. how to list the failures.
    /// `errors` (default none): files asked for that could not be written. `next` (default
    /// none): a line after the summary saying how to finish the job, e.g. after an interruption;
    /// shown wherever the summary is.
    func finish(
        report: CrawlReport, status: Int32, notices: [String] = [], warnings: [String] = [], errors: [String] = [],
        hint: String? = nil, next: String? = nil
    ) {
        stop()
        for source in report.sources {
            for warning in source.warnings {
                route(LogRecord(level: .warning, source: source.name, event: "warning", message: warning))
            }
        }
        for warning in warnings { route(LogRecord(level: .warning, event: "warning", message: warning)) }
        for notice in notices { route(LogRecord(level: .info, event: "notice", message: notice)) }
        for error in errors { route(LogRecord(level: .error, event: "error", message: error)) }
        if let problem = report.storageProblem {
            route(LogRecord(level: .error, event: "error", message: problem))
        }
        var fields = [LogField("items", report.itemCount)]
        for status in ItemStatus.allCases { fields.append(LogField(status.rawValue, report.count(status))) }
        fields += [LogField("bytes", report.bytesDownloaded), LogField("seconds", report.seconds), LogField("exitStatus", Int(status))]
        let line = Self.summaryLine(report) + (hint.map { "; " + $0 } ?? "")
        let message = line.hasPrefix("feedcrawl: ") ? String(line.dropFirst(11)) : line
        route(LogRecord(level: .info, event: "summary", message: message, fields: fields), summary: true)
        if let next { route(LogRecord(level: .info, event: "next", message: next), summary: true) }
        flushHeld(status: status)
        if ux.json {
            let counts = Dictionary(uniqueKeysWithValues: progress.snapshot().sources.map { ($0.name, $0.counts) })
            let sheet = FileIO.directoryName(of: report.manifestPath) + "/" + ContactSheet.fileName
            let summary = RunSummary(report: report, exitStatus: status, sourceCounts: counts,
                                     contactSheet: FileIO.exists(sheet) ? sheet : nil)
            if let text = try? summary.jsonLine() { ConsoleWriter.write(fd: 1, text + "\n") }
        }
    }

    /// The one line printed at the end of a run, with what the run could not read, per source:
    /// `1 source failed (pixabay); 2 pages failed (launches 2); 17 launch details missing (launches 17); `.
    static func summaryLine(_ report: CrawlReport) -> String {
        let order: [ItemStatus] = [.downloaded, .fresh, .revalidated, .noImage, .failed, .rejected, .cancelled]
        let parts = order.compactMap { status -> String? in
            let count = report.count(status)
            return count > 0 || status == .downloaded || status == .failed ? "\(count) \(status.rawValue)" : nil
        }
        var text = "feedcrawl: \(report.itemCount) items: \(parts.joined(separator: ", ")); "
        let failed = report.sources.filter { $0.failure != nil }.map(\.name)
        if !failed.isEmpty { text += "\(failed.count) source\(failed.count == 1 ? "" : "s") failed (\(failed.joined(separator: ", "))); " }
        let kinds: [(one: String, many: String, count: KeyPath<SourceReport, Int>)] = [
            ("page failed", "pages failed", \.failedPages),
            ("launch details missing", "launch details missing", \.missingDetails),
        ]
        for (one, many, count) in kinds {
            let sources = report.sources.filter { $0[keyPath: count] > 0 }
            guard !sources.isEmpty else { continue }
            let total = sources.reduce(0) { $0 + $1[keyPath: count] }
            let each = sources.map { "\($0.name) \($0[keyPath: count])" }.joined(separator: ", ")
            text += "\(total) \(total == 1 ? one : many) (\(each)); "
        }
        let seconds = (report.seconds * 100).rounded() / 100
        return text + "\(ByteSize.format(report.bytesDownloaded)) in \(seconds) s -> \(report.manifestPath)"
    }

    /// Ends a run that could not take place (lock held, output folder unusable).
    func fail(_ message: String, status: Int32) {
        stop()
        route(LogRecord(level: .error, event: "error", message: message, fields: [LogField("exitStatus", Int(status))]))
        flushHeld(status: status)
        if ux.json { ConsoleWriter.write(fd: 1, RunSummary.failureLine(exitStatus: status, message: message) + "\n") }
    }

    // MARK: routing

    /// Sends a record where the options say. `chatter` records (pages, retries, transfers) are not
    /// printed above a live display unless --verbose; the display already shows their effect.
    private func route(_ record: LogRecord, chatter: Bool = false, summary: Bool = false) {
        if let logFile {
            if record.level >= threshold || summary {
                logFile.write(ux.logFormat.format(record, timestamps: ux.logFormat == .text))
            }
            if record.level >= .warning || summary { toConsole(record, format: .text, summary: summary) }
        } else if record.level >= threshold || summary {
            if chatter && live && !ux.verbose { return }
            toConsole(record, format: ux.logFormat, summary: summary)
        }
    }

    private func toConsole(_ record: LogRecord, format: LogFormat, summary: Bool) {
        let line = format.format(record)
        if ux.quiet {
            guard record.level >= .warning || summary else { return }
            lock.withLock {
                if held.count < Self.heldLimit { held.append(line) } else { heldDropped += 1 }
            }
            return
        }
        console.line(line)
    }

    private func flushHeld(status: Int32) {
        let lines: [String] = lock.withLock {
            defer { held = [] }
            return held
        }
        guard ux.quiet, status != 0 else { return }
        for line in lines { console.line(line) }
        let dropped = lock.withLock { heldDropped }
        if dropped > 0 { console.line("feedcrawl: (\(dropped) more lines not shown)") }
    }
}
