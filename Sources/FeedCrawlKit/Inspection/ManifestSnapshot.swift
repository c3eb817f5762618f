import FoundationEssentials

/// The manifest of an output folder as a run would see it: `manifest.json` with any journal an
/// unfinished run left folded in (in memory only; nothing is written). Items are read one at a
/// time (`forEachItem`), so a manifest of any size can be inspected.
public struct ManifestSnapshot: Sendable {
    /// Why there is nothing to inspect.
    public enum LoadError: Error, Sendable, CustomStringConvertible {
        /// No `manifest.json` and no journal in the folder.
        case notFound(path: String)
        /// The manifest cannot be read or decoded.
        case unreadable(String)
        /// The manifest cannot be parsed: damaged (`DamagedManifest` says how to recover).
        case damaged(DamagedManifest)

        public var description: String {
            switch self {
            case .notFound(let path): "no manifest at \(path) (has feedcrawl run with this --out?)"
            case .unreadable(let reason): reason
            case .damaged(let damage): damage.description
            }
        }
    }

    public var layout: CacheLayout
    /// The manifest file's header (its `run` as far as read; `forEachItem` completes it).
    public var header: ManifestHeader
    /// Items taken from `manifest.journal` (0 when a run finished cleanly), one per key.
    public var journalItems: Int { journaled.count }
    /// Whether `manifest.json` exists: false before the first run has finished (the items then
    /// come from the journal alone, and `header` is a placeholder).
    public var hasManifest: Bool

    /// The journal's items, sorted (a killed run's journal holds at most one run's items).
    private var journaled: [ManifestItem]

    /// Reads the header of `OUT/manifest.json` and the journal, if there is one.
    public static func load(outDirectory: String) throws(LoadError) -> ManifestSnapshot {
        let layout = CacheLayout(outDirectory: outDirectory)
        let reader: ManifestReader?
        do {
            reader = try ManifestReader.open(path: layout.manifestPath)
        } catch {
            if let damage = DamagedManifest.from(error, manifestPaths: [layout.manifestPath]) { throw .damaged(damage) }
            throw .unreadable(error.description)
        }
        let variants = reader?.variants ?? .init()
        var byKey: [ItemKey: ManifestItem] = [:]
        _ = try? Journal.read(path: layout.journalPath, variants: variants) { item, _ in byKey[item.key] = item }
        guard reader != nil || !byKey.isEmpty else { throw .notFound(path: layout.manifestPath) }
        var header = reader?.header ?? ManifestHeader(generatedAt: Date(timeIntervalSince1970: 0))
        if reader == nil { header.version = Manifest.currentVersion }
        return ManifestSnapshot(
            layout: layout, header: header, hasManifest: reader != nil,
            journaled: byKey.values.sorted(by: ManifestItem.stableOrder))
    }

    /// Calls `body` with every item in manifest order (a journal's item replaces the manifest's
    /// with the same key); returns the manifest's header as read to its end.
    @discardableResult
    public func forEachItem(_ body: (ManifestItem) throws -> Void) throws -> ManifestHeader {
        let stream = try ManifestItemStream(path: layout.manifestPath, spill: nil)
        var streams: [any ItemStream] = [ArrayItemStream(items: journaled), stream]
        _ = try ManifestMerge(policy: .init(precedence: .firstInput)).run(&streams) { try body($0.item) }
        return stream.header ?? header
    }
}

/// Items held in memory, already in manifest order, as an `ItemStream` (internal).
struct ArrayItemStream: ItemStream {
    var items: [ManifestItem]
    var index = 0

    mutating func next() throws(ManifestStore.Error) -> StreamItem? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return StreamItem(item: items[index], line: nil)
    }
}
