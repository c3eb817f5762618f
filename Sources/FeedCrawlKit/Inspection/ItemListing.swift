/// Renders manifest items (`feedcrawl manifest --status S --source S`).
public enum ItemListing {
    /// Columns of the CSV form, in order: one row per image (an item without images gets one
    /// row with the image columns empty).
    public static let csvHeader = [
        "source", "id", "page", "status", "title", "variant", "imageStatus", "file", "bytes", "width", "height",
        "sha256", "error", "url",
    ]

    /// `items` in `format`, ending with a newline. Table: source, id, status, file or error,
    /// title (shortened), aligned, one line per item; JSON: an array of manifest items (the
    /// manifest's own form); CSV: `csvHeader` columns, one row per image.
    public static func render(_ items: [ManifestItem], format: InspectionFormat) -> String {
        switch format {
        case .json:
            guard !items.isEmpty else { return "[]\n" }
            var out = "[\n"
            for (index, item) in items.enumerated() {
                out += "  " + String(decoding: ItemJSON.line(item), as: UTF8.self)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            return out + "]\n"
        case .csv:
            var rows: [[String]] = []
            for item in items {
                let head = [item.source, item.id, String(item.page), item.status.rawValue, item.title]
                if item.images.isEmpty {
                    rows.append(head + ["", "", "", "", "", "", "", item.error ?? "", ""])
                }
                for image in item.images {
                    rows.append(head + [
                        image.variant, image.status.rawValue, image.file ?? "", image.bytes.map(String.init) ?? "",
                        image.width.map(String.init) ?? "", image.height.map(String.init) ?? "", image.sha256 ?? "",
                        image.error ?? item.error ?? "", image.url,
                    ])
                }
            }
            return CSV.document(header: csvHeader, rows: rows)
        case .table:
            guard !items.isEmpty else { return "No matching items.\n" }
            var table = TextTable(header: ["source", "id", "status", "file or error", "title"])
            for item in items {
                let stored = item.firstStoredImage?.file
                let problem = item.error ?? item.images.first(where: { !$0.status.hasImage })?.error
                let detail = item.status.hasImage ? (stored ?? "") : (problem ?? stored ?? "")
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
