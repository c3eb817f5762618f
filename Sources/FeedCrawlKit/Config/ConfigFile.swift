import FoundationEssentials
import FeedCrawlSupport

/// A `feedcrawl.json` configuration file, read but not yet applied.
///
/// ```json
/// {
///   "out": "/srv/feedcrawl",
///   "pages": 5,
///   "ttl": "24h",
///   "sources": [
///     { "type": "pixabay", "url": "https://pixabay.com/api/", "keyEnv": "PIXABAY_KEY", "query": "flowers" },
///     { "type": "launches", "url": "https://example.org/graphql", "pages": 6 }
///   ]
/// }
/// ```
///
/// Top-level keys other than `sources` are command-line options spelt in camelCase
/// (`perPage` is `--per-page`); the command line checks their values. `sources` is a list of
/// `ConfigSource`. Secrets never appear in the file, only the name of the environment variable
/// that holds them.
public struct ConfigFile: Sendable, Equatable {
    /// The file's name in OUT: `feedcrawl.json`.
    public static let fileName = "feedcrawl.json"
    /// Largest file accepted: 1 MiB.
    public static let maxBytes = 1 << 20

    /// Where it was read from.
    public var path: String
    /// Top-level options other than `sources`, sorted by key.
    public var options: [Option]
    /// The sources, or nil when the file has no `sources` key.
    public var sources: [ConfigSource]?

    /// One top-level option.
    public struct Option: Sendable, Equatable {
        public var key: String
        public var value: ConfigValue

        /// The command-line option this key stands for: `perPage` → `--per-page`.
        public var optionName: String { ConfigFile.optionName(forKey: key) }
    }

    /// Reads and checks the file at `path`; `topLevelKeys` as in `parse`.
    public static func load(path: String, topLevelKeys: [String]? = nil) throws(ConfigError) -> ConfigFile {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, maxBytes: maxBytes)
        } catch {
            if error.isTooLarge { throw ConfigError(path: path, key: "", problem: "larger than 1 MiB") }
            throw ConfigError(path: path, key: "", problem: "cannot be read: \(error)")
        }
        return try parse(bytes, path: path, topLevelKeys: topLevelKeys)
    }

    /// Parses and checks a file's bytes (`path` is only used in errors).
    ///
    /// Top-level keys of letters and digits are kept for the caller to check against the options
    /// it knows; any other key is refused here.
    ///
    /// - Parameters:
    ///   - topLevelKeys: the valid keys, named in that refusal (the closest one and the list);
    ///     default nil: the refusal says only "unknown key".
    ///   - types: the feed types a source may name; default `FeedSources.registered`.
    public static func parse(
        _ bytes: [UInt8], path: String, topLevelKeys: [String]? = nil, types: [any FeedSource.Type] = FeedSources.registered
    ) throws(ConfigError) -> ConfigFile {
        // Strict JSON first (Foundation's decoder takes trailing commas and duplicate keys), and
        // it says where.
        if let problem = JSONSyntaxCheck.firstProblem(in: bytes) {
            throw ConfigError(path: path, key: "", problem: "not valid JSON at \(problem)")
        }
        let value: ConfigValue
        do {
            value = try JSONDecoder().decode(ConfigValue.self, from: Data(bytes))
        } catch {
            throw ConfigError(path: path, key: "", problem: "not valid JSON (\(Self.syntaxDetail(error)))")
        }
        guard case .object(let top) = value else {
            throw ConfigError(path: path, key: "", problem: "expected a JSON object at the top level, not \(value.kindDescription)")
        }
        var file = ConfigFile(path: path, options: [], sources: nil)
        for key in top.keys.sorted() {
            guard let value = top[key] else { continue }

            if key == "sources" {
                guard case .array(let entries) = value else {
                    throw ConfigError(path: path, key: key, problem: "expected an array of sources, not \(value.kindDescription)")
                }
                var sources: [ConfigSource] = []
                for (index, entry) in entries.enumerated() {
                    sources.append(try ConfigSource(entry, key: "sources[\(index)]", path: path, types: types))
                }
                var names = Set<String>()
                for (index, source) in sources.enumerated() where !names.insert(source.name).inserted {
                    throw ConfigError(path: path, key: "sources[\(index)].name",
                                      problem: "\"\(source.name)\" is used by an earlier source; give each source its own name")
                }
                file.sources = sources
            } else {
                guard key.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }),
                      !key.isEmpty
                else {
                    throw ConfigError(path: path, key: TerminalText.sanitize(String(key.prefix(60))),
                                      problem: topLevelKeys.map { KeySuggestion.unknownKey(key, valid: $0) } ?? "unknown key")
                }
                file.options.append(Option(key: key, value: value))
            }
        }
        return file
    }

    /// `perPage` → `--per-page`, `maxImageBytes` → `--max-image-bytes`.
    public static func optionName(forKey key: String) -> String {
        var out = "--"
        for c in key {
            if c.isUppercase {
                out += "-" + c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// `--per-page` → `perPage`.
    public static func key(forOptionName name: String) -> String {
        var out = ""
        var upper = false
        for c in name.drop(while: { $0 == "-" }) {
            if c == "-" {
                upper = true
            } else {
                out += upper ? c.uppercased() : String(c)
                upper = false
            }
        }
        return out
    }

    static func syntaxDetail(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError {
                return TerminalText.sanitize(String("\(underlying)".prefix(200)))
            }
            return TerminalText.sanitize(context.debugDescription)
        }
        return TerminalText.sanitize(String("\(error)".prefix(200)))
    }
}
