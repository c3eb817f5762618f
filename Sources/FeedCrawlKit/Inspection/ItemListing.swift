/// Renders manifest items one a line (`feedcrawl manifest --status S --source S`).
public enum ItemListing {
    /// Columns of the CSV form, in order.
    public static let csvHeader = [
        "source", "id", "page", "status", "title", "file", "bytes", "width", "height", "sha256", "error", "imageURL",
    ]

    /// `items` in `format`, ending with a newline. Table: source, id, status, file or error,
    /// title (shortened), aligned; JSON: an array of manifest items; CSV: `csvHeader` columns.
    public static func render(_ items: [ManifestItem], format: InspectionFormat) -> String {
        switch format {
        case .json:
            return items.isEmpty ? "[]\n" : InspectionFormat.json(items)
        case .csv:
            let rows = items.map { item in
                [
                    item.source, item.id, String(item.page), item.status.rawValue, item.title, item.file ?? "",
                    item.bytes.map(String.init) ?? "", item.width.map(String.init) ?? "",
                    item.height.map(String.init) ?? "", item.sha256 ?? "", item.error ?? "", item.imageURL ?? "",
                ]
            }
            return CSV.document(header: csvHeader, rows: rows)
        case .table:
            guard !items.isEmpty else { return "No matching items.\n" }
            var table = TextTable(header: ["source", "id", "status", "file or error", "title"])
            for item in items {
                let detail = item.status.hasImage ? (item.file ?? "") : (item.error ?? item.file ?? "")
                table.rows.append([
                    clean(item.source, 20), clean(item.id, 24), item.status.rawValue,
                    clean(detail, 80), clean(item.title, 60),
                ])
            }
            return table.render()
        }
    }

    static func clean(_ text: String, _ limit: Int) -> String {
        ManifestSummary.shorten(TerminalText.sanitize(text), to: limit)
    }
}
