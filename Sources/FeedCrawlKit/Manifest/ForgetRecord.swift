import FoundationEssentials

/// What the archive's last forget took out (`feedcrawl forget`, or a crawl's `--forget-after`):
/// kept in the root until the next forget replaces it, shown on the contact sheet and by
/// `feedcrawl manifest`, so that what left the archive, and why, can be seen after the fact.
public struct ForgetRecord: Codable, Sendable, Equatable {
    /// When the forget was committed.
    public var at: Date
    /// The rule, as options (`--not-listed-for 0s --source flowers`, `--forget-after 30d`).
    public var rule: String
    /// Items forgotten, by source.
    public var items: [String: Int]
    /// Image files removed (those only forgotten items named), and their bytes.
    public var files: Int
    public var bytes: Int64

    public init(at: Date, rule: String, items: [String: Int], files: Int, bytes: Int64) {
        self.at = at
        self.rule = rule
        self.items = items
        self.files = files
        self.bytes = bytes
    }

    /// Items forgotten in all.
    public var itemCount: Int { items.values.reduce(0, +) }

    /// `3 items (flowers 2, cats 1)`: the count and, by source, the counts.
    public var itemsText: String {
        "\(itemCount) item\(itemCount == 1 ? "" : "s") (\(Self.bySource(items)))"
    }

    /// `cats 1, flowers 2`: counts by source, sorted by name (what every forget message shows).
    public static func bySource(_ items: [String: Int]) -> String {
        items.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
