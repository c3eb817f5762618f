import FeedCrawlKit

/// The one line printed at the end of a run.
enum Summary {
    static func line(_ report: CrawlReport) -> String {
        let order: [ItemStatus] = [.downloaded, .fresh, .revalidated, .noImage, .failed, .rejected, .cancelled]
        let parts = order.compactMap { status -> String? in
            let count = report.count(status)
            return count > 0 || status == .downloaded || status == .failed ? "\(count) \(status.rawValue)" : nil
        }
        let seconds = (report.seconds * 100).rounded() / 100
        return "feedcrawl: \(report.itemCount) items: \(parts.joined(separator: ", ")); "
            + lost(report)
            + "\(ByteSize.format(report.bytesDownloaded)) in \(seconds) s -> \(report.manifestPath)"
    }

    /// What the run could not read, per source, or "": `1 source failed (pixabay); 2 pages
    /// failed (launches 2); 17 launch details missing (launches 17); `.
    static func lost(_ report: CrawlReport) -> String {
        let failed = report.sources.filter { $0.failure != nil }.map(\.name)
        var text = failed.isEmpty ? ""
            : "\(failed.count) source\(failed.count == 1 ? "" : "s") failed (\(failed.joined(separator: ", "))); "
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
        return text
    }
}
