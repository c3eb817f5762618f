import FoundationEssentials
import FeedCrawlSupport

/// Which manifest items to list. Every criterion left empty (the default) matches everything;
/// an item is listed when it passes every criterion given.
public struct ItemFilter: Sendable, Equatable {
    /// Statuses to keep; empty (default) keeps all.
    public var statuses: Set<ItemStatus>
    /// Source names to keep; empty (default) keeps all.
    public var sources: Set<String>
    /// Item ids to keep; empty (default) keeps all.
    public var ids: Set<String> = []
    /// Keep items with an image of one of these variants (`preview`, `small`, …); empty
    /// (default) keeps all.
    public var variants: Set<String> = []
    /// Keep items whose error, or an image's error, contains this text (case-insensitive);
    /// nil (default) keeps all.
    public var errorText: String?
    /// Keep items listed on these feed pages; nil (default) keeps all.
    public var pages: ClosedRange<Int>?
    /// Keep items last seen at or after this time; nil (default) keeps all.
    public var seenSince: Date?
    /// Keep items last seen before this time (or never recorded as seen); nil (default) keeps all.
    public var seenBefore: Date?

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

    /// Parses `N` or `N-M` (feed page numbers, from 1); nil when malformed.
    public static func parsePages(_ text: String) -> ClosedRange<Int>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2, let low = Int(parts[0]), low >= 0 else { return nil }
        guard parts.count == 2 else { return low...low }
        guard let high = Int(parts[1]), high >= low else { return nil }
        return low...high
    }

    /// Parses a time: a UTC date (`2026-12-01`), a timestamp (`2026-12-01T08:00:00Z`), or a
    /// duration before `now` (`24h`, `7d`); nil when it is none of these.
    public static func parseTime(_ text: String, now: Date = Date()) -> Date? {
        if let seconds = try? DurationParser.parse(text) { return now.addingTimeInterval(-seconds) }
        let stamp = text.count == 10 ? text + "T00:00:00Z" : text
        return try? Date(stamp, strategy: .iso8601)
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
        guard statuses.isEmpty || statuses.contains(item.status),
              sources.isEmpty || sources.contains(item.source),
              ids.isEmpty || ids.contains(item.id),
              pages.map({ $0.contains(item.page) }) ?? true,
              variants.isEmpty || item.images.contains(where: { variants.contains($0.variant) })
        else { return false }
        if let seenSince, (item.lastSeen ?? .distantPast) < seenSince { return false }
        if let seenBefore, let seen = item.lastSeen, seen >= seenBefore { return false }
        if let errorText {
            let needle = errorText.lowercased()
            let errors = [item.error] + item.images.map(\.error)
            guard errors.contains(where: { $0?.lowercased().contains(needle) == true }) else { return false }
        }
        return true
    }
}
