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
            + "\(ByteSize.format(report.bytesDownloaded)) in \(seconds) s -> \(report.manifestPath)"
    }
}
