import FeedCrawlSupport
import FeedCrawlHTTP

/// One entry of a configuration file's `sources`: its feed type (`"type"`, one of
/// `FeedSources.registered`), the keys every type shares (`FeedSourceEntry`) and the type's
/// own, which the type reads (`FeedSource.make`).
///
/// The keys every type shares are `FeedSourceEntry.commonKeys`; each type declares its own
/// (`FeedSource.fileKeys`), with what each means.
public struct ConfigSource: Sendable, Equatable {
    /// The feed type.
    public var type: any FeedSource.Type
    /// The entry's keys, checked.
    public var entry: FeedSourceEntry

    /// The source's name.
    public var name: String { entry.name }

    public static func == (a: ConfigSource, b: ConfigSource) -> Bool {
        a.type.type == b.type.type && a.entry == b.entry
    }

    /// The environment variables holding this source's secrets: the type's (a key's) and its
    /// headers'.
    public var secretVariables: [String] {
        type.secretVariables(entry) + entry.headers.compactMap(\.env)
    }

    init(_ value: ConfigValue, key prefix: String, path: String, types: [any FeedSource.Type] = FeedSources.registered) throws(ConfigError) {
        func fail(_ key: String, _ problem: String) -> ConfigError {
            ConfigError(path: path, key: key.isEmpty ? prefix : "\(prefix).\(key)", problem: problem)
        }
        guard case .object(let fields) = value else {
            throw fail("", "expected an object with \"type\" and \"url\", not \(value.kindDescription)")
        }
        let names = types.map { "\"\($0.type)\"" }.joined(separator: ", ")
        guard let typeValue = fields["type"] else { throw fail("type", "missing; expected one of \(names)") }
        guard case .string(let typeText) = typeValue, let type = FeedSources.type(named: typeText, in: types) else {
            throw fail("type", "expected one of \(names), not \(typeValue.kindDescription)")
        }
        let allowed = (FeedSourceEntry.commonKeys + type.fileKeys).map(\.name)
        for key in fields.keys.sorted() where !allowed.contains(key) {
            let shown = TerminalText.sanitize(String(key.prefix(60)))
            if FeedSourceEntry.secretKeys.contains(key) {
                throw fail(shown, "secrets may not be written in the file; put the key in an environment variable and name it with \"keyEnv\"")
            }
            throw fail(shown, KeySuggestion.unknownKey(key, valid: allowed, what: "key for a \(type.type) source"))
        }
        self.type = type
        entry = try FeedSourceEntry(fields, type: type, prefix: prefix, path: path)
        _ = try type.make(entry)  // the type's own keys, checked now (no secret is looked up)
    }

    /// The crawl configuration of this source.
    ///
    /// - Parameters:
    ///   - pages, perPage: the run's values, used when the file gives none for this source,
    ///     and always when `override` is true (the command line or environment set them).
    ///   - headers: the run's `--header`s, sent too (replacing the file's of the same name).
    ///   - environment: where secrets (a key's `keyEnv`, the headers' `env`) are looked up.
    /// - Throws: `ConfigError` when a secret's variable is unset or empty.
    public func configuration(
        pages runPages: Int, perPage runPerPage: Int, overridePages: Bool, overridePerPage: Bool,
        headers runHeaders: [HTTPHeader] = [], environment: [String: String]
    ) throws(ConfigError) -> SourceConfiguration {
        var entry = entry
        entry.run = .init(
            pages: runPages, perPage: runPerPage, overridePages: overridePages, overridePerPage: overridePerPage,
            headers: runHeaders, environment: environment)
        return SourceConfiguration(try type.make(entry))
    }
}

/// A configuration file's source entry as its type reads it: the keys every type shares,
/// checked, the type's own keys (read with `string`, `integer`, `bool`), and the run's
/// settings the source takes when the file gives none (`run`).
public struct FeedSourceEntry: Sendable, Equatable {
    /// Keys every source may hold, with what each means.
    public static let commonKeys: [FeedFileKey] = [
        .init("type", "the feed type: \(typeNames) (required)"),
        .init("url", "the API endpoint, http:// or https:// (required)"),
        .init("name", "the items' source in the manifest; unique (default the type)"),
        .init("pages", "pages to fetch (default the top-level pages; --pages and FEEDCRAWL_PAGES override it)"),
        .init("pageTtl", "reuse kept feed pages younger than this, e.g. \"24h\" (default 24h for pixabay, 0 for the others)"),
        .init("images", "image variants to fetch, an array of names or one comma-separated string "
                  + "(\(variantsByType))"),
        .init("headers", "request headers for the feed: {\"Authorization\": {\"env\": \"VARIABLE\"}} reads the value "
                  + "from the environment; a plain string only for a header without credentials (default none)"),
    ]
    /// The registered types' names, `pixabay, launches, array`.
    private static var typeNames: String {
        FeedSources.registered.map { $0.type }.joined(separator: ", ")
    }

    /// Each registered type's variant names, `pixabay: preview, webformat, large; …`.
    private static var variantsByType: String {
        FeedSources.registered.map { $0.type + ": " + $0.variantNames.joined(separator: ", ") }.joined(separator: "; ")
    }

    /// Keys refused with a pointer to `keyEnv`: secrets never sit in the file.
    static let secretKeys = ["key", "apiKey", "token", "password", "secret"]

    /// One entry of `headers`: a value written in the file, or the name of the environment
    /// variable holding it.
    public struct Header: Sendable, Equatable {
        public var name: String
        /// `{"env": "VARIABLE"}`: the variable's name.
        public var env: String?
        /// `"value"`: the value itself (only for names that do not carry credentials).
        public var value: String?
    }

    /// The run's settings a source takes when the file gives none.
    public struct Run: Sendable, Equatable {
        public var pages = 5
        public var perPage = 100
        /// `--pages` (or `FEEDCRAWL_PAGES`) was given: it wins over the file's.
        public var overridePages = false
        /// `--per-page` was given: it wins over the file's.
        public var overridePerPage = false
        /// The command line's `--header`s.
        public var headers: [HTTPHeader] = []
        /// Where secrets are looked up; nil while the file is only checked.
        public var environment: [String: String]? = nil
    }

    /// The file, and the entry's key (`sources[1]`), for errors.
    public var path: String
    public var prefix: String
    /// Every key of the entry, as written.
    public var fields: [String: ConfigValue]
    public var name: String
    public var url: String
    /// `pageTtl`, in seconds, when given.
    public var pageTTL: Double?
    /// `images` (an array or one comma-separated string), checked against the type's variants.
    public var images: [String]?
    /// `headers`, sorted by name.
    public var headers: [Header] = []
    /// The run's settings; default: checking only.
    public var run = Run()

    /// Pages to fetch: `--pages` when given, else the entry's `pages`, else the run's.
    public var pages: Int {
        get throws(ConfigError) {
            let own = try integer("pages", 0...100_000)
            return run.overridePages ? run.pages : (own ?? run.pages)
        }
    }

    /// The error for `key` (`""`: the entry) of this entry.
    public func fail(_ key: String, _ problem: String) -> ConfigError {
        ConfigError(path: path, key: key.isEmpty ? prefix : "\(prefix).\(key)", problem: problem)
    }

    /// The non-empty string at `key`, or nil when absent.
    public func string(_ key: String) throws(ConfigError) -> String? {
        guard let value = fields[key] else { return nil }
        guard case .string(let text) = value, !text.isEmpty else {
            throw fail(key, "expected a non-empty string, not \(value.kindDescription)")
        }
        return text
    }

    /// The whole number in `range` at `key`, or nil when absent.
    public func integer(_ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
        guard let value = fields[key] else { return nil }
        guard case .number(let n) = value, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            throw fail(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), not \(value.kindDescription)")
        }
        return Int(n)
    }

    /// `true` or `false` at `key`, or nil when absent.
    public func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let value = fields[key] else { return nil }
        guard case .bool(let flag) = value else { throw fail(key, "expected true or false, not \(value.kindDescription)") }
        return flag
    }

    /// The environment variable named at `key` (letters, digits, `_`), or nil when absent.
    public func variableName(_ key: String) throws(ConfigError) -> String? {
        guard let name = try string(key) else { return nil }
        guard Self.isVariableName(name) else {
            throw fail(key, "expected the NAME of an environment variable (letters, digits, '_'), not the key itself")
        }
        return name
    }

    static func isVariableName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }
    }

    init(_ fields: [String: ConfigValue], type: any FeedSource.Type, prefix: String, path: String) throws(ConfigError) {
        self.fields = fields
        self.prefix = prefix
        self.path = path
        name = type.type
        url = ""

        guard let url = try string("url") else { throw fail("url", "missing; expected the API's http:// or https:// URL") }
        let lower = url.lowercased()
        guard (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && url.count > 8 else {
            throw fail("url", "expected an http:// or https:// URL, not \(ConfigValue.string(url).kindDescription)")
        }
        self.url = url
        let name = try string("name") ?? type.type
        guard SourceConfiguration.isValidName(name) else {
            throw fail("name", "expected up to 64 letters, digits, '.', '_' or '-', not \(ConfigValue.string(name).kindDescription)")
        }
        self.name = name
        _ = try integer("pages", 0...100_000)
        if let text = try string("pageTtl") {
            do {
                pageTTL = try DurationParser.parse(text)
            } catch {
                throw fail("pageTtl", "expected a duration such as \"90s\", \"10m\", \"24h\" or \"7d\": \(error)")
            }
        }
        if let value = fields["images"] {
            guard let names = value.listItems else {
                throw fail("images", "expected a list of variant names (an array, or one comma-separated string), not \(value.kindDescription)")
            }
            do {
                _ = try ImageVariants.parse(names, among: type.variantNames)
            } catch {
                throw fail("images", error.description)
            }
            images = names
        }
        if let value = fields["headers"] {
            guard case .object(let entries) = value else {
                throw fail("headers", "expected an object of header names, e.g. {\"Authorization\": {\"env\": \"TOKEN_VARIABLE\"}}, not \(value.kindDescription)")
            }
            for (header, entry) in entries.sorted(by: { $0.key < $1.key }) {
                let shown = TerminalText.sanitize(String(header.prefix(60)))
                switch entry {
                case .object(let spec):
                    guard spec.count == 1, case .string(let variable)? = spec["env"], Self.isVariableName(variable) else {
                        throw fail("headers.\(shown)", "expected {\"env\": \"VARIABLE\"}, the NAME of an environment variable (letters, digits, '_')")
                    }
                    headers.append(Header(name: header, env: variable))
                case .string(let text):
                    // Credentials never sit in the file; the text is not quoted back.
                    guard !Self.carriesCredentials(header) else {
                        throw fail("headers.\(shown)", "a secret may not be written in the file; put it in an environment variable and write {\"env\": \"VARIABLE\"}")
                    }
                    headers.append(Header(name: header, value: text))
                default:
                    throw fail("headers.\(shown)", "expected {\"env\": \"VARIABLE\"} or a string, not \(entry.kindDescription)")
                }
                do {
                    _ = try FeedHeaders.check(name: header, value: headers.last?.value ?? "x")
                } catch {
                    throw fail("headers.\(shown)", error.description)
                }
            }
        }
    }

    /// Whether a header named `name` carries credentials, so its value may only come from the
    /// environment: `Cookie`, or a name holding `auth`, `key`, `token`, `secret`, `password`
    /// or `session` (`Authorization`, `X-Api-Key`, …).
    static func carriesCredentials(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "cookie" || ["auth", "key", "token", "secret", "password", "session"].contains { lower.contains($0) }
    }

    /// The source's headers, values read from the environment, then the run's `--header`s
    /// (replacing the file's of the same name); none while only checking. Throws when a
    /// variable is unset or empty, or its value cannot be sent (CR, LF).
    public func resolvedHeaders() throws(ConfigError) -> [HTTPHeader] {
        guard let environment = run.environment else { return [] }
        var resolved: [HTTPHeader] = []
        for header in headers {
            let key = "headers.\(TerminalText.sanitize(String(header.name.prefix(60))))"
            guard let value = header.value ?? header.env.flatMap({ environment[$0] }), !value.isEmpty else {
                let variable = header.env ?? ""
                throw fail(key, "the environment variable \(variable) holds no value; set it (export \(variable)=...)")
            }
            do {
                resolved.append(try FeedHeaders.check(name: header.name, value: value))
            } catch {
                throw fail(key, error.description + (header.env.map { " (from \($0))" } ?? ""))
            }
        }
        return FeedHeaders.merged(resolved, run.headers)
    }
}
