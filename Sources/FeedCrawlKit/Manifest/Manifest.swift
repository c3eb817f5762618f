import FoundationEssentials

/// A whole manifest in memory: its header and its items, for small manifests and tests. A crawl
/// never holds one; it streams (`ManifestReader`, `ManifestWriter`).
///
/// On disk (`OUT/manifest.json`, format version 2):
/// ```
/// {
///   "version": 2,
///   "generatedAt": "2026-12-01T10:00:00Z",
///   "items": [
///     {"source":"pixabay","id":"195893","page":1,"status":"downloaded",…,"images":[{…}]},
///     …
///   ],
///   "run": {…}
/// }
/// ```
/// one item per line (`ItemJSON`), items in `ManifestItem.stableOrder`, each `(source, id)` once.
public struct Manifest: Sendable, Equatable {
    /// The format version this code writes (2); it also reads version 1.
    public static let currentVersion = 2

    /// When the manifest was written.
    public var generatedAt: Date
    /// The run (or merge) that wrote it, if recorded.
    public var run: RunRecord?
    /// The items, in the order of the file they were loaded from (a manifest feedcrawl wrote
    /// is in stable order); sorted when saved.
    public var items: [ManifestItem]
    /// The version of the file it was loaded from (`currentVersion` for new manifests).
    public var version: Int = Manifest.currentVersion

    /// Creates a manifest.
    public init(generatedAt: Date, run: RunRecord? = nil, items: [ManifestItem] = []) {
        self.generatedAt = generatedAt
        self.run = run
        self.items = items
    }

    /// A manifest of `items` under `header`, keeping its version.
    init(header: ManifestHeader, items: [ManifestItem]) {
        self.init(generatedAt: header.generatedAt, run: header.run, items: items)
        version = header.version
    }

    /// An empty manifest (no run, no items, `generatedAt` = 1970-01-01), used when none exists.
    public static var empty: Manifest { Manifest(generatedAt: Date(timeIntervalSince1970: 0)) }

    /// The items in stable order, one per key (a later item with the same key wins).
    public var sortedItems: [ManifestItem] {
        itemsByKey.values.sorted(by: ManifestItem.stableOrder)
    }

    /// The items keyed by `(source, id)`; when a key repeats, the later item wins.
    public var itemsByKey: [ItemKey: ManifestItem] {
        items.reduce(into: [:]) { $0[$1.key] = $1 }
    }
}
