import FeedCrawlSupport

/// Renders manifest items (`feedcrawl manifest --status S --source S …`) one at a time: a
/// listing of any size is written as it is read, never held whole. A table, whose columns are
/// as wide as their widest cell, is measured in a first pass over the same items (`measure`).
public struct ItemListing: Sendable {
    /// Columns of the CSV form, in order: one row per image (an item without images gets one
    /// row with the image columns empty).
    public static let csvHeader = [
        "source", "id", "page", "status", "title", "variant", "imageStatus", "file", "bytes", "width", "height",
        "sha256", "error", "url",
    ]

    /// Columns of the table form: one line per item.
    static let tableHeader = ["source", "id", "status", "file or error", "title", "url"]

    /// The form written.
    public let format: InspectionFormat
    /// Table column widths, grown by `measure` (the header's to start with).
    private var widths: [Int]
    /// The most columns a table row may take (`feedcrawl manifest` on a terminal: its width);
    /// nil (default): as wide as its cells. The widest of the url, title and file-or-error
    /// columns gives way first, down to 12 columns each; their cells are cut with `…`.
    public var maxWidth: Int?

    /// A listing in `format`, its table rows at most `maxWidth` columns (default: no limit).
    public init(format: InspectionFormat, maxWidth: Int? = nil) {
        self.format = format
        self.maxWidth = maxWidth
        widths = Self.tableHeader.map(\.count)
    }

    /// `widths` narrowed to fit `maxWidth`, as far as the columns that may give way allow.
    private var fittedWidths: [Int] {
        guard let maxWidth else { return widths }
        var fitted = widths
        var excess = fitted.reduce(0, +) + 2 * (fitted.count - 1) - maxWidth
        while excess > 0 {
            // url, title, file or error: the widest that can still give way.
            guard let column = [5, 4, 3].filter({ fitted[$0] > 12 }).max(by: { fitted[$0] < fitted[$1] }) else { break }
            let others = [5, 4, 3].filter { $0 != column }.map { fitted[$0] }.max() ?? 12
            let cut = min(excess, fitted[column] - max(12, min(others, fitted[column] - 1)))
            fitted[column] -= max(cut, 1)
            excess -= max(cut, 1)
        }
        return fitted
    }

    /// Whether rows need a first pass (`measure` over every item) before `row`: the table's.
    public var needsMeasuring: Bool { format == .table }

    /// Widens the table's columns to hold `item`'s row.
    public mutating func measure(_ item: ManifestItem) {
        for (index, cell) in Self.tableCells(item).enumerated() { widths[index] = max(widths[index], cell.count) }
    }

    /// What comes before the first row.
    public func begin() -> String {
        switch format {
        case .json: "["
        case .csv: CSV.row(Self.csvHeader) + "\n"
        case .table, .ndjson: ""
        }
    }

    /// The text of `item`, the `index`-th row written (from 0).
    public func row(_ item: ManifestItem, index: Int) -> String {
        switch format {
        case .json:
            return (index == 0 ? "\n  " : ",\n  ") + String(decoding: ItemJSON.line(item), as: UTF8.self)
        case .ndjson:
            return String(decoding: ItemJSON.line(item), as: UTF8.self) + "\n"
        case .csv:
            let head = [item.source, item.id, String(item.page), item.status.rawValue, item.title]
            if item.images.isEmpty {
                return CSV.row(head + ["", "", "", "", "", "", "", item.error ?? "", ""]) + "\n"
            }
            return item.images.map { image in
                CSV.row(head + [
                    image.variant, image.status.rawValue, image.file ?? "", image.bytes.map(String.init) ?? "",
                    image.width.map(String.init) ?? "", image.height.map(String.init) ?? "", image.sha256 ?? "",
                    image.error ?? item.error ?? "", image.url,
                ]) + "\n"
            }.joined()
        case .table:
            let widths = fittedWidths
            let cells = zip(Self.tableCells(item), widths).map { ManifestSummary.shorten($0, to: $1) }
            return (index == 0 ? TextTable.line(Self.tableHeader, widths: widths) : "")
                + TextTable.line(cells, widths: widths)
        }
    }

    /// What comes after the last of `count` rows.
    public func end(count: Int) -> String {
        switch format {
        case .json: count == 0 ? "]\n" : "\n]\n"
        case .csv, .ndjson: ""
        case .table: count == 0 ? "No matching items.\n" : ""
        }
    }

    /// `items` in `format`, ending with a newline (the listing of items already in memory); a
    /// table's rows at most `maxWidth` columns (default: no limit).
    public static func render(_ items: [ManifestItem], format: InspectionFormat, maxWidth: Int? = nil) -> String {
        var listing = ItemListing(format: format, maxWidth: maxWidth)
        if listing.needsMeasuring { items.forEach { listing.measure($0) } }
        var out = listing.begin()
        for (index, item) in items.enumerated() { out += listing.row(item, index: index) }
        return out + listing.end(count: items.count)
    }

    /// What a streamed listing saw: the rows written, and every source name in the archive.
    public struct Written: Sendable {
        /// Items that matched and were written.
        public var count = 0
        /// The source names of every item read, matching or not.
        public var sources: Set<String> = []
        /// The ids `--id` asked for that no item of the archive has (of the sources asked for).
        public var missingIDs: Set<String> = []
    }

    /// Writes the items of `reader` that `filter` keeps, in the manifest's order, to `write` as
    /// they are read (two passes for a table, its rows at most `maxWidth` columns). Memory stays
    /// flat at any size.
    public static func stream(
        _ reader: ArchiveReader, filter: ItemFilter, format: InspectionFormat, maxWidth: Int? = nil, write: (String) -> Void
    ) async throws -> Written {
        var listing = ItemListing(format: format, maxWidth: maxWidth)
        var written = Written()
        if !filter.ids.isEmpty {
            // `--id`: a lookup a wanted item, not a pass over the archive.
            written.sources = Set(reader.sources)
            let found = try await reader.items(ids: filter.ids, sources: filter.sources)
            written.missingIDs = filter.ids.subtracting(found.map(\.id))
            let items = found.filter(filter.matches)
            if listing.needsMeasuring { items.forEach { listing.measure($0) } }
            write(listing.begin())
            for item in items {
                write(listing.row(item, index: written.count))
                written.count += 1
            }
            write(listing.end(count: written.count))
            return written
        }
        if listing.needsMeasuring {
            try await reader.forEachItem { item in
                if filter.matches(item) { listing.measure(item) }
            }
        }
        write(listing.begin())
        try await reader.forEachItem { item in
            written.sources.insert(item.source)
            guard filter.matches(item) else { return }
            write(listing.row(item, index: written.count))
            written.count += 1
        }
        write(listing.end(count: written.count))
        return written
    }

    static func tableCells(_ item: ManifestItem) -> [String] {
        let stored = item.firstStoredImage?.file
        let problem = item.error ?? item.images.first(where: { !$0.status.hasImage })?.error
        let detail = item.status.hasImage ? (stored ?? "") : (problem ?? stored ?? "")
        let url = (item.firstStoredImage ?? item.images.first)?.url ?? ""
        return [clean(item.source, 20), clean(item.id, 24), item.status.rawValue, clean(detail, 80),
                clean(item.title, 60), clean(url, 100)]
    }

    static func clean(_ text: String, _ limit: Int) -> String {
        ManifestSummary.shorten(TerminalText.sanitize(text), to: limit)
    }
}
