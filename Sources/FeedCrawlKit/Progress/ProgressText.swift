/// Text renderings of a `ProgressSnapshot`: the lines of a live terminal display and the single
/// line logged periodically when stderr is not a terminal. Pure functions, no escape codes.
public enum ProgressText {
    /// The live display: one line per source, then a totals line (two on a narrow terminal),
    /// each cut to `width - 1` characters so no line wraps (wrapping would break redrawing in place).
    ///
    /// ```
    /// pixabay    page 3/5   300 items   280 done   2 failed
    /// launches   page 2/5    40 items    40 done
    /// images 320 done · 18 queued · 2 failed │ 1.4 MiB │ 512 KiB/s │ 0:03
    /// ```
    public static func lines(_ snapshot: ProgressSnapshot, bytesPerSecond: Double?, width: Int) -> [String] {
        let nameWidth = min(20, snapshot.sources.map(\.name.count).max() ?? 0)
        var lines = snapshot.sources.map { source -> String in
            let name = source.name.count > nameWidth
                ? String(source.name.prefix(nameWidth))
                : source.name + String(repeating: " ", count: nameWidth - source.name.count)
            var line = name + "  " + pages(source)
            line += "  " + pad(source.listed, 6) + " items  " + pad(source.finished - problems(source), 6) + " done"
            let bad = problems(source)
            if bad > 0 { line += "  \(bad) failed" }
            if source.failed { line += "  SOURCE FAILED" }
            return line
        }
        let limit = max(10, width - 1)
        let totals = totals(snapshot, bytesPerSecond: bytesPerSecond, separator: " │ ")
        if totals.count <= limit {
            lines.append(totals)
        } else {
            // Narrow terminal: counts on one line, bytes, rate and time on the next.
            lines.append("images \(snapshot.done) done · \(snapshot.queued) queued · \(snapshot.problems) failed")
            lines.append(ByteSize.format(snapshot.bytes) + " │ " + (bytesPerSecond.map(rate) ?? "-- B/s") + " │ " + elapsed(snapshot.elapsed))
        }
        return lines.map { $0.count > limit ? String($0.prefix(limit)) : $0 }
    }

    /// One line for logs:
    /// `pixabay 3/5 pages, launches 2/5 pages; images 320 done, 18 queued, 2 failed; 1.4 MiB at 512 KiB/s; 0:03 elapsed`.
    public static func logLine(_ snapshot: ProgressSnapshot, bytesPerSecond: Double?) -> String {
        let sources = snapshot.sources.map { source in
            "\(source.name) \(source.pagesFetched)\(source.pagesPlanned > 0 ? "/\(source.pagesPlanned)" : "") pages"
        }
        var line = sources.joined(separator: ", ")
        line += (line.isEmpty ? "" : "; ")
        line += "images \(snapshot.done) done, \(snapshot.queued) queued, \(snapshot.problems) failed; "
        line += ByteSize.format(snapshot.bytes)
        if let rate = bytesPerSecond { line += " at " + self.rate(rate) }
        line += "; " + elapsed(snapshot.elapsed) + " elapsed"
        return line
    }

    /// The totals: `images 320 done · 18 queued · 2 failed │ 1.4 MiB │ 512 KiB/s │ 0:03`.
    static func totals(_ snapshot: ProgressSnapshot, bytesPerSecond: Double?, separator: String) -> String {
        var line = "images \(snapshot.done) done · \(snapshot.queued) queued · \(snapshot.problems) failed"
        line += separator + ByteSize.format(snapshot.bytes)
        line += separator + (bytesPerSecond.map(rate) ?? "-- B/s")
        line += separator + elapsed(snapshot.elapsed)
        return line
    }

    /// `page 3/5`, or `page 3` when the plan is unknown.
    static func pages(_ source: ProgressSnapshot.Source) -> String {
        source.pagesPlanned > 0 ? "page \(source.pagesFetched)/\(source.pagesPlanned)" : "page \(source.pagesFetched)"
    }

    static func problems(_ source: ProgressSnapshot.Source) -> Int {
        [ItemStatus.failed, .rejected, .cancelled].reduce(0) { $0 + source.counts[$1, default: 0] }
    }

    static func pad(_ number: Int, _ width: Int) -> String {
        let text = String(number)
        return text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// Elapsed time as `m:ss`, or `h:mm:ss` from one hour on.
    public static func elapsed(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded(.down))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// A rate as `512 KiB/s`.
    public static func rate(_ bytesPerSecond: Double) -> String {
        guard bytesPerSecond.isFinite else { return "-- B/s" }
        return ByteSize.format(Int64(max(0, bytesPerSecond).rounded())) + "/s"
    }
}
