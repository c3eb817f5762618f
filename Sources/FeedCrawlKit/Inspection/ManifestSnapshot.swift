/// The manifest of an output folder as a run would see it: `manifest.json` with any journal an
/// unfinished run left folded in (in memory only; nothing is written).
public struct ManifestSnapshot: Sendable {
    /// Why there is nothing to inspect.
    public enum LoadError: Error, Sendable, CustomStringConvertible {
        /// No `manifest.json` and no journal in the folder.
        case notFound(path: String)
        /// The manifest cannot be read or decoded.
        case unreadable(String)

        public var description: String {
            switch self {
            case .notFound(let path): "no manifest at \(path) (has feedcrawl run with this --out?)"
            case .unreadable(let reason): reason
            }
        }
    }

    public var layout: CacheLayout
    public var manifest: Manifest
    /// Items taken from `manifest.journal` (0 when a run finished cleanly).
    public var journalItems: Int

    /// Loads `OUT/manifest.json` and folds in `OUT/manifest.journal` if present.
    public static func load(outDirectory: String) throws(LoadError) -> ManifestSnapshot {
        let layout = CacheLayout(outDirectory: outDirectory)
        let journaled = (try? Journal.load(path: layout.journalPath)) ?? []
        guard FileIO.exists(layout.manifestPath) || !journaled.isEmpty else {
            throw .notFound(path: layout.manifestPath)
        }
        var manifest: Manifest
        do {
            manifest = try ManifestStore.load(path: layout.manifestPath)
        } catch {
            throw .unreadable(error.description)
        }
        if !journaled.isEmpty { manifest = manifest.folding(journaled) }
        return ManifestSnapshot(layout: layout, manifest: manifest, journalItems: journaled.count)
    }
}
