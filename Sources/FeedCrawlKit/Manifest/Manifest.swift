import FoundationEssentials

/// The manifest, `OUT/manifest.json`: one entry per feed item, plus a summary of the run.
///
/// Encoded (see `ManifestStore`) as pretty-printed JSON with sorted keys and ISO-8601 dates;
/// `items` are always written in `ManifestItem.stableOrder`.
public struct Manifest: Codable, Sendable, Equatable {
    /// The format version this code reads and writes (1).
    public static let currentVersion = 1

    /// Format version; always `currentVersion` for manifests created here.
    public private(set) var version: Int
    /// When the manifest was written.
    public var generatedAt: Date
    /// The run that wrote it, if recorded.
    public var run: RunRecord?
    /// The items, in no particular order in memory (sorted when encoded).
    public var items: [ManifestItem]

    /// Creates a version-1 manifest.
    public init(generatedAt: Date, run: RunRecord? = nil, items: [ManifestItem] = []) {
        self.version = Self.currentVersion
        self.generatedAt = generatedAt
        self.run = run
        self.items = items
    }

    /// An empty manifest (no run, no items, `generatedAt` = 1970-01-01), used when none exists.
    public static var empty: Manifest { Manifest(generatedAt: Date(timeIntervalSince1970: 0)) }

    /// The items in stable order (source, page, id).
    public var sortedItems: [ManifestItem] { items.sorted(by: ManifestItem.stableOrder) }

    /// The items keyed by `(source, id)`; when a key repeats, the later item wins.
    public var itemsByKey: [ItemKey: ManifestItem] {
        items.reduce(into: [:]) { $0[$1.key] = $1 }
    }

    /// A copy with `updates` applied in order: each replaces the item with the same
    /// `(source, id)`, or is added. Later entries win, so journal lines can be folded in as read.
    /// The result's items are in stable order; nothing else changes.
    public func folding(_ updates: [ManifestItem]) -> Manifest {
        var byKey: [ItemKey: Int] = [:]
        var merged: [ManifestItem] = []
        merged.reserveCapacity(items.count + updates.count)
        for item in items + updates {
            if let index = byKey[item.key] {
                merged[index] = item
            } else {
                byKey[item.key] = merged.count
                merged.append(item)
            }
        }
        var copy = self
        copy.items = merged.sorted(by: ManifestItem.stableOrder)
        return copy
    }

    enum CodingKeys: String, CodingKey {
        case version, generatedAt, run, items
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        guard version == Self.currentVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: c,
                debugDescription: "unsupported manifest version \(version) (this build reads version \(Self.currentVersion))")
        }
        generatedAt = try c.decode(Date.self, forKey: .generatedAt)
        run = try c.decodeIfPresent(RunRecord.self, forKey: .run)
        items = try c.decodeIfPresent([ManifestItem].self, forKey: .items) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(generatedAt, forKey: .generatedAt)
        try c.encodeIfPresent(run, forKey: .run)
        try c.encode(sortedItems, forKey: .items)
    }
}
