import FeedCrawlSupport

extension CacheVerification {
    /// The verification in `format`, ending with a newline. Table: one line per problem and a
    /// verdict; JSON: this value; CSV: `kind,file,items,detail` rows.
    public func render(_ format: InspectionFormat) -> String {
        switch format {
        case .json:
            return InspectionFormat.json(self)
        case .ndjson:
            return problems.map { InspectionFormat.jsonLine($0) }.joined()
        case .csv:
            let rows = problems.map { [$0.kind.rawValue, $0.file, $0.items.joined(separator: " "), $0.detail ?? ""] }
            return CSV.document(header: ["kind", "file", "items", "detail"], rows: rows)
        case .table:
            var table = TextTable(header: ["problem", "file", "items / detail"])
            for problem in problems {
                var about = problem.items.prefix(3).joined(separator: ", ")
                if problem.items.count > 3 { about += " and \(problem.items.count - 3) more" }
                if let detail = problem.detail { about += about.isEmpty ? detail : ": " + detail }
                table.rows.append([
                    problem.kind.rawValue, TerminalText.sanitize(problem.file),
                    ItemListing.clean(about, 120),
                ])
            }
            var out = problems.isEmpty ? "" : table.render() + "\n"
            out += "Verified \(checkedFiles) files (\(ByteSize.format(checkedBytes))): "
            if isClean {
                out += "no problems.\n"
            } else {
                let parts = Problem.Kind.allCases.compactMap { kind -> String? in
                    let n = count(kind)
                    return n > 0 ? "\(n) \(kind.rawValue)" : nil
                }
                out += parts.joined(separator: ", ") + ".\n"
            }
            return out
        }
    }
}
