import FeedCrawlSupport
import FeedCrawlHTTP

/// One feed to crawl: a value of a registered feed type (`FeedSources.registered`). The
/// crawler knows it only through `FeedSource`.
public struct SourceConfiguration: Sendable {
    /// The source.
    public var feed: any FeedSource

    /// Wraps `feed`.
    public init(_ feed: any FeedSource) {
        self.feed = feed
    }

    /// The name items of this source carry in the manifest.
    public var name: String { feed.name }
    /// The feed's endpoint.
    public var url: String { feed.url }
    /// Pages to fetch at most.
    public var pages: Int { feed.pages }
    /// The API key the source sends (a secret), nil when it sends none.
    public var key: String? { feed.apiKey }
    /// The source's type as the configuration file names it (`pixabay`, `launches`, `array`).
    public var type: String { Swift.type(of: feed).type }
    /// Reuse of fetched pages in seconds (`OUT/pages/<name>/`); 0 = none.
    public var pageTTL: Double { feed.pageTTL }
    /// Headers sent with every feed request of the source (`--header`, `headers`); their values
    /// are secrets.
    public var headers: [HTTPHeader] { feed.headers }

    /// The `GroupRecipe` of what a run asks of this source's pages: its type, its variants and
    /// every setting of its type (secrets masked): a page is settled only when it is asked the
    /// same as the run that wrote its group.
    func recipe(_ redactor: SecretRedactor) -> String {
        var parts = [type, feed.variantList.joined(separator: ",")]
        for (key, value) in feed.settings(redactor) { parts.append(key + "=" + value.recorded) }
        return GroupRecipe.of(parts)
    }

    /// What the run masks for this source: its key and its headers' values.
    public var secrets: [String] {
        (key.map { [$0] } ?? []) + FeedHeaders.secrets(headers)
    }

    /// Whether `name` can name a source: 1 to 64 of `A-Z a-z 0-9 . _ -`, not `.` or `..`
    /// (it names a folder under OUT/pages and in recordings).
    public static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}

/// Parses lists of image variant names (`--pixabay-images preview,webformat`, a source's
/// `"images"` in the configuration file).
public enum ImageVariants {
    /// Why a list of variants is not usable; the text names the valid ones.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// The names in `list` as `Variant`s, in order, repeats dropped. Throws `Invalid` for an
    /// empty list or an unknown name (the message names the valid ones).
    public static func parse<Variant: RawRepresentable & CaseIterable>(
        _ list: [String], as: Variant.Type
    ) throws(Invalid) -> [Variant] where Variant.RawValue == String, Variant: Equatable {
        try parse(list, among: Variant.allCases.map(\.rawValue)).compactMap(Variant.init(rawValue:))
    }

    /// The names in `list` among `names` (a feed type's `variantNames`), in order, repeats
    /// dropped; throws `Invalid` as `parse(_:as:)` does.
    public static func parse(_ list: [String], among names: [String]) throws(Invalid) -> [String] {
        var variants: [String] = []
        for name in list.map({ FeedText.trimmedASCIIWhitespace($0).lowercased() }) where !name.isEmpty {
            guard names.contains(name) else {
                throw Invalid(description: "unknown image variant '\(TerminalText.sanitize(String(name.prefix(40))))' (valid: \(names.joined(separator: ", ")))")
            }
            if !variants.contains(name) { variants.append(name) }
        }
        guard !variants.isEmpty else { throw Invalid(description: "no image variant named (valid: \(names.joined(separator: ", ")))") }
        return variants
    }

    /// `parse` of a comma-separated list.
    public static func parse<Variant: RawRepresentable & CaseIterable>(
        commaSeparated text: String, as type: Variant.Type
    ) throws(Invalid) -> [Variant] where Variant.RawValue == String, Variant: Equatable {
        try parse(text.split(separator: ",", omittingEmptySubsequences: false).map(String.init), as: type)
    }
}
