/// Which manifest items to list: by status and by source. An empty set matches everything.
public struct ItemFilter: Sendable, Equatable {
    /// Statuses to keep; empty (default) keeps all.
    public var statuses: Set<ItemStatus>
    /// Source names to keep; empty (default) keeps all.
    public var sources: Set<String>

    /// Creates a filter; both sets default to empty (everything matches).
    public init(statuses: Set<ItemStatus> = [], sources: Set<String> = []) {
        self.statuses = statuses
        self.sources = sources
    }

    /// Parses a comma-separated list of statuses (`failed,rejected`). Throws a message naming
    /// the valid statuses when one is unknown.
    public static func parseStatuses(_ text: String) throws(InvalidStatus) -> Set<ItemStatus> {
        var result = Set<ItemStatus>()
        for part in text.split(separator: ",") {
            let name = part.trimmingASCIIWhitespace()
            guard let status = ItemStatus(rawValue: String(name)) else { throw InvalidStatus(text: String(name)) }
            result.insert(status)
        }
        if result.isEmpty { throw InvalidStatus(text: text) }
        return result
    }

    /// An unknown status name.
    public struct InvalidStatus: Error, Sendable, CustomStringConvertible {
        public var text: String
        public var description: String {
            "unknown status '\(TerminalText.sanitize(text))' (statuses: "
                + ItemStatus.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        }
    }

    /// Whether `item` passes.
    public func matches(_ item: ManifestItem) -> Bool {
        (statuses.isEmpty || statuses.contains(item.status)) && (sources.isEmpty || sources.contains(item.source))
    }

    /// The matching items of `manifest`, in the manifest's stable order.
    public func apply(to manifest: Manifest) -> [ManifestItem] {
        manifest.sortedItems.filter(matches)
    }

    /// The matching items of `snapshot`, in the manifest's order.
    public func apply(to snapshot: ManifestSnapshot) throws -> [ManifestItem] {
        var matching: [ManifestItem] = []
        try snapshot.forEachItem { if matches($0) { matching.append($0) } }
        return matching
    }
}
