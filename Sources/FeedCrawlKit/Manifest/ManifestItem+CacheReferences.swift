/// A cache file an item points at, with what the manifest records about it.
public struct CacheReference: Sendable, Hashable {
    /// Path relative to OUT (`cache/ab/<key>.<ext>`).
    public var file: String
    public var bytes: Int64?
    public var sha256: String?
    /// Whether this is the item's own image (`file`) rather than a detail's (the large patch).
    public var isPrimary: Bool
}

extension ManifestItem {
    /// Every cache file the item points at: its image and, for launches with details, the
    /// large mission patch.
    public var cacheReferences: [CacheReference] {
        var references: [CacheReference] = []
        if let file {
            references.append(CacheReference(file: file, bytes: bytes, sha256: sha256, isPrimary: true))
        }
        if let details, let file = details.largePatchFile {
            references.append(CacheReference(
                file: file, bytes: details.largePatchBytes, sha256: details.largePatchSHA256, isPrimary: false))
        }
        return references
    }

    /// Forgets the large patch's file (it was evicted or is gone), keeping the rest of the details.
    mutating func dropDetailFile(reason: String) {
        guard details?.largePatchFile != nil else { return }
        details?.largePatchFile = nil
        details?.largePatchSHA256 = nil
        details?.largePatchBytes = nil
        details?.largePatchError = reason
    }
}
