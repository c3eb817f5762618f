import FeedCrawlSupport
import FeedCrawlHTTP

/// What the command line gives the feed types: their options as given, in order, and the
/// run's settings a source takes (`FeedSource.make(_:)`).
public struct FeedCommandLine: Sendable {
    /// The feed types' options as given, in order (a flag's value is "").
    public var given: [(name: String, value: String)] = []
    /// `--pages`; default 5.
    public var pages = 5
    /// `--per-page`; default 100.
    public var perPage = 100
    /// `--page-ttl`; default nil (each type's).
    public var pageTTL: Double? = nil
    /// `--header`s, sent with every source's feed requests.
    public var headers: [HTTPHeader] = []
    /// The process environment (keys are read from it).
    public var environment: [String: String] = [:]
    /// `--replay`: no feed request goes out, so no key is needed.
    public var replay = false
    /// The built-in demo feed's URL for each type name, when no source is named.
    public var demoURLs: [String: String] = [:]

    /// Creates an empty command line.
    public init() {}

    /// The last value given to any of `names` (later options win, as on every command line).
    public func last(_ names: String...) -> String? {
        given.last { names.contains($0.name) }?.value
    }

    /// Whether any of `names` was given.
    public func has(_ names: String...) -> Bool {
        given.contains { names.contains($0.name) }
    }

    /// Whether the command line names a source of any of `types` (its first option, the URL).
    public func namesSource(_ types: [any FeedSource.Type] = FeedSources.registered) -> Bool {
        types.contains { type in type.commandLineOptions.first.map { has($0.name) } ?? false }
    }
}

/// A value a feed type's option cannot take; the text starts with the option's name.
public struct FeedOptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    /// `name` must be an http(s) URL.
    public static func checkURL(_ name: String, _ text: String) throws(FeedOptionError) {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.count > 8 else {
            throw FeedOptionError("\(name) takes an http:// or https:// URL, not '\(text)'")
        }
    }

    /// `text` as a whole number in `range`.
    public static func integer(_ name: String, _ text: String, in range: ClosedRange<Int>) throws(FeedOptionError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw FeedOptionError(
                "\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(TerminalText.sanitize(text))'")
        }
        return number
    }

    /// `text` as a list of `Variant` names (`preview,large`).
    public static func variants<Variant: RawRepresentable & CaseIterable & Equatable>(
        _ name: String, _ text: String, as type: Variant.Type
    ) throws(FeedOptionError) -> [Variant] where Variant.RawValue == String {
        do {
            return try ImageVariants.parse(commaSeparated: text, as: type)
        } catch {
            throw FeedOptionError("\(name): \(error)")
        }
    }
}
