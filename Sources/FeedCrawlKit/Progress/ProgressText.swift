import FeedCrawlSupport

/// Text renderings of a `ProgressSnapshot`: the lines of a live terminal display and the single
/// line logged periodically when stderr is not a terminal. Pure functions, no escape codes.
public enum ProgressText {
    /// The live display: one line per source, then a totals line (two on a narrow terminal),
    /// each at most `width - 1` characters so no line wraps (wrapping would break redrawing in
    /// place). Everything counted is items, as in the summary: `listed` is what the source's
    /// pages listed, `done` items that ended well, `failed` items that ended badly (failed,
    /// rejected or cancelled), `queued` items listed without an outcome yet.
    ///
    /// ```
    /// pixabay    page 3/5     300 listed     280 done  2 failed
    /// launches   page 2/5      40 listed      40 done
    /// items 320 done · 18 queued · 2 failed │ 1.4 MiB │ 512 KiB/s │ 0:03
    /// ```
    ///
    /// A line too long for the width loses whole fields, the least useful first (a source's
    /// `listed`, then its page, the rate, the bytes...), and a source's name is shortened with
    /// `…` only as a last resort: a number is never cut. A field that alone cannot fit is left out.
    ///
    /// `glyphs` (default `.unicode`): the separators and the ellipsis; with `.ascii` the lines
    /// are plain ASCII (`items 320 done - 18 queued - 2 failed | 1.4 MiB | ...`).
    public static func lines(
        _ snapshot: ProgressSnapshot, bytesPerSecond: Double?, width: Int, glyphs: TerminalGlyphs = .unicode
    ) -> [String] {
        let limit = max(10, width - 1)
        let nameWidth = min(20, snapshot.sources.map(\.name.count).max() ?? 0)
        let ellipsis = glyphs.ellipsis
        var lines = snapshot.sources.map { source -> String in
            let name = source.name.count > nameWidth
                ? String(source.name.prefix(nameWidth - ellipsis.count)) + ellipsis
                : source.name + String(repeating: " ", count: nameWidth - source.name.count)
            var fields = [
                Field(name, keep: 0, name: true), Field(pages(source), keep: 5),
                Field(pad(source.listed, 6) + " listed", keep: 6), Field(pad(source.finished - source.problems, 6) + " done", keep: 1),
            ]
            let bad = source.problems
            if bad > 0 { fields.append(Field("\(bad) failed", keep: 2)) }
            if source.failed { fields.append(Field("SOURCE FAILED", keep: 1)) }
            return fit(fields, separator: "  ", limit: limit, ellipsis: ellipsis)
        }
        let counts = [
            Field("items \(snapshot.done) done", keep: 0), Field("\(snapshot.queued) queued", keep: 2),
            Field("\(snapshot.problems) failed", keep: 1),
        ]
        let extras = [
            Field(ByteSize.format(snapshot.bytes), keep: 4), Field(bytesPerSecond.map(rate) ?? "-- B/s", keep: 5),
            Field(elapsed(snapshot.elapsed), keep: 3),
        ]
        let totals = (counts.map(\.text) + extras.map(\.text))
        let oneLine = totals[0..<3].joined(separator: glyphs.dot) + glyphs.bar + totals[3...].joined(separator: glyphs.bar)
        if oneLine.count <= limit {
            lines.append(oneLine)
        } else {
            // Narrow terminal: counts on one line, bytes, rate and time on the next.
            lines.append(fit(counts, separator: glyphs.dot, limit: limit, ellipsis: ellipsis))
            lines.append(fit(extras, separator: glyphs.bar, limit: limit, ellipsis: ellipsis))
        }
        return lines
    }

    /// One field of a display line: whole or not at all. `keep`: the lower, the longer it stays
    /// when the line is too long; `name`: text that may be shortened with `…` as a last resort.
    struct Field {
        var text: String
        var keep: Int
        var name: Bool

        init(_ text: String, keep: Int, name: Bool = false) {
            self.text = text
            self.keep = keep
            self.name = name
        }
    }

    /// `fields` joined by `separator` in their order. A line longer than `limit` characters
    /// loses its padding, then whole fields (highest `keep` first, the later of equals first)
    /// until it fits; then a `name` field is shortened (ending with `ellipsis`, default `…`), and
    /// a last field still too long is left out: "" at worst.
    static func fit(_ fields: [Field], separator: String, limit: Int, ellipsis: String = "…") -> String {
        var fields = fields
        func length() -> Int { fields.reduce(0) { $0 + $1.text.count } + max(0, fields.count - 1) * separator.count }
        // First the padding that lines the columns up goes, then whole fields.
        if length() > limit { fields = fields.map { Field(String($0.text.trimmingASCIIWhitespace()), keep: $0.keep, name: $0.name) } }
        while length() > limit, fields.count > 1 {
            let drop = fields.indices.max { a, b in fields[a].keep != fields[b].keep ? fields[a].keep < fields[b].keep : a < b }!
            fields.remove(at: drop)
        }
        if length() > limit, let only = fields.first {
            guard only.name, limit > ellipsis.count else { return "" }
            return String(only.text.prefix(limit - ellipsis.count)) + ellipsis
        }
        // Padding a name to line up the columns is worth nothing at the end of a line.
        var line = fields.map(\.text).joined(separator: separator)
        while line.last == " " { line.removeLast() }
        return line
    }

    /// One line for logs:
    /// `pixabay 3/5 pages, launches 2/5 pages; items 320 done, 18 queued, 2 failed; 1.4 MiB at 512 KiB/s; 0:03 elapsed`.
    public static func logLine(_ snapshot: ProgressSnapshot, bytesPerSecond: Double?) -> String {
        let sources = snapshot.sources.map { source in
            "\(source.name) \(source.pagesFetched)\(source.pagesPlanned > 0 ? "/\(source.pagesPlanned)" : "") pages"
        }
        var line = sources.joined(separator: ", ")
        line += (line.isEmpty ? "" : "; ")
        line += "items \(snapshot.done) done, \(snapshot.queued) queued, \(snapshot.problems) failed; "
        line += ByteSize.format(snapshot.bytes)
        if let rate = bytesPerSecond { line += " at " + self.rate(rate) }
        line += "; " + elapsed(snapshot.elapsed) + " elapsed"
        return line
    }

    /// `page 3/5`, or `page 3` when the plan is unknown.
    static func pages(_ source: ProgressSnapshot.Source) -> String {
        source.pagesPlanned > 0 ? "page \(source.pagesFetched)/\(source.pagesPlanned)" : "page \(source.pagesFetched)"
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

