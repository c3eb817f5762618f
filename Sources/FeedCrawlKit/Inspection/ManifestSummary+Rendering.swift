import FoundationEssentials
import FeedCrawlSupport

extension ManifestSummary {
    /// The summary in `format`, ending with a newline. Table: a readable report; JSON: this value;
    /// CSV: `source,status,count` rows (including a `total` source).
    public func render(_ format: InspectionFormat, manifestPath: String) -> String {
        switch format {
        case .json: return InspectionFormat.json(self)
        case .ndjson: return InspectionFormat.jsonLine(self)
        case .csv: return csv()
        case .table: return table(manifestPath: manifestPath)
        }
    }

    private func csv() -> String {
        var rows: [[String]] = []
        for group in sources + [totals] {
            for status in ItemStatus.allCases {
                if let count = group.counts[status.rawValue] {
                    rows.append([group.source, status.rawValue, String(count)])
                }
            }
        }
        return CSV.document(header: ["source", "status", "count"], rows: rows)
    }

    private func table(manifestPath: String) -> String {
        var out = "Manifest \(TerminalText.sanitize(manifestPath)), "
            + (generatedAt.map { "written \(InspectionFormat.date($0))" } ?? "none yet: no run has finished") + "\n"
        if let run = lastRun {
            var line = "Last run: started \(InspectionFormat.date(run.startedAt))"
            if let finished = run.finishedAt {
                let seconds = (finished.timeIntervalSince(run.startedAt) * 10).rounded() / 10
                line += ", finished \(InspectionFormat.date(finished)) (\(seconds) s)"
            }
            let counted = ItemStatus.allCases.compactMap { status in
                run.counts[status.rawValue].map { "\($0) \(status.rawValue)" }
            }
            if !counted.isEmpty { line += "; \(counted.joined(separator: ", "))" }
            if run.bytes > 0 { line += "; \(ByteSize.format(run.bytes)) downloaded" }
            if run.deadlineReached == true { line += "; stopped at its deadline" }
            if run.evicted > 0 {
                line += "; evicted \(run.evicted) files"
                if let bytes = run.evictedBytes { line += " (\(ByteSize.format(bytes)))" }
            }
            out += line + "\n"
        } else {
            out += "Last run: not recorded\n"
        }
        if let forgot = lastForget {
            out += "Last forget: \(InspectionFormat.date(forgot.at)) (\(TerminalText.sanitize(forgot.rule))): "
                + TerminalText.sanitize(forgot.itemsText) + ", \(forgot.files) files (\(ByteSize.format(forgot.bytes)))\n"
        }
        out += "\n"
        if items == 0 {
            out += "No items.\n"
        } else {
            let statuses = statusesPresent
            var table = TextTable(header: ["source"] + statuses.map(\.rawValue) + ["total"])
            table.numeric = Set(1...(statuses.count + 1))
            for group in sources + [totals] {
                table.rows.append(
                    [TerminalText.sanitize(group.source)]
                        + statuses.map { String(group.counts[$0.rawValue, default: 0]) } + [String(group.total)])
            }
            out += table.render()
        }
        out += "\nCache: \(files) files, \(ByteSize.format(bytesOnDisk))\n"
        if !commonErrors.isEmpty {
            out += "\nMost common errors:\n"
            for entry in commonErrors {
                let count = String(entry.count)
                let pad = String(repeating: " ", count: max(0, 6 - count.count))
                out += pad + count + "  " + Self.shorten(TerminalText.sanitize(entry.error), to: 100) + "\n"
            }
        }
        return out
    }

    static func shorten(_ text: String, to limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}
