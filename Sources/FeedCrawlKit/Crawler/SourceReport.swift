/// How one source's crawl went.
public struct SourceReport: Sendable, Equatable {
    public var name: String
    /// Feed pages fetched and parsed.
    public var pages: Int = 0
    /// Items the feed listed.
    public var items: Int = 0
    /// Problems that did not stop the source (a bad page, a repeated cursor, partial data).
    public var warnings: [String] = []
    /// Pages that could not be read (an error status after retries, HTML, a body that is not a
    /// page); their items are missing from the manifest.
    public var failedPages: Int = 0
    /// Items left without the details asked for (`--details`: the query failed, brought partial
    /// data, or was refused); the run then exits 1.
    public var missingDetails: Int = 0
    /// Feed responses taken from the page cache (`OUT/pages`) instead of the network.
    public var cachedPages: Int = 0
    /// Set when the source could not be crawled at all (bad key, unreachable, invalid responses).
    public var failure: String? = nil
    /// Set when the source was cut short by cancellation.
    public var cancelled: Bool = false

    public init(name: String) {
        self.name = name
    }
}

extension SourceReport {
    /// Records page `number` as unreadable: its items are missing, the source goes on.
    mutating func pageFailed(_ number: Int, _ reason: String) {
        failedPages += 1
        warnings.append("page \(number): \(reason)")
    }

    /// Records a read that failed on page `number` of a sequentially paged source: with no page
    /// read yet the source failed as a whole, else `pageFailed`.
    mutating func readFailed(page number: Int, _ reason: String) {
        if pages == 0 { failure = reason } else { pageFailed(number, reason) }
    }

    /// The report as the manifest's run record keeps it.
    var summary: RunRecord.SourceSummary {
        var summary = RunRecord.SourceSummary(source: name, pages: pages, items: items, error: failure)
        summary.warnings = warnings.isEmpty ? nil : warnings
        summary.failedPages = failedPages > 0 ? failedPages : nil
        return summary
    }
}
