/// One entry of a configuration file's `sources`.
///
/// | key | sources | meaning |
/// |---|---|---|
/// | `type` | all | `pixabay` or `launches` (required) |
/// | `url` | all | the API endpoint, http:// or https:// (required) |
/// | `name` | all | name in the manifest; default the type; unique |
/// | `pages` | all | pages to fetch; default the run's `--pages` |
/// | `keyEnv` | pixabay | environment variable holding the API key; default `PIXABAY_KEY` |
/// | `query` | pixabay | search terms; default none |
/// | `imageType` | pixabay | `all`, `photo`, `illustration`, `vector`; default `all` |
/// | `perPage` | pixabay | hits per page, 3–200; default the run's `--per-page` |
/// | `pageConcurrency` | pixabay | pages fetched at once, 1–16; default 4 |
public struct ConfigSource: Sendable, Equatable {
    /// The kinds of source a file can name.
    public enum Kind: String, Sendable, CaseIterable {
        case pixabay
        case launches
    }

    public var kind: Kind
    public var name: String
    public var url: String
    /// Name of the environment variable holding the key (pixabay); default `PIXABAY_KEY`.
    public var keyEnv: String?
    public var query: String?
    public var imageType: String?
    public var pages: Int?
    public var perPage: Int?
    public var pageConcurrency: Int?

    static let commonKeys = ["type", "name", "url", "pages"]
    static let pixabayKeys = commonKeys + ["keyEnv", "query", "imageType", "perPage", "pageConcurrency"]
    static let secretKeys = ["key", "apiKey", "token", "password", "secret"]

    /// The environment variable a Pixabay source reads its key from by default.
    public static let defaultKeyEnv = "PIXABAY_KEY"

    init(_ value: ConfigValue, key prefix: String, path: String) throws(ConfigError) {
        func fail(_ key: String, _ problem: String) -> ConfigError {
            ConfigError(path: path, key: key.isEmpty ? prefix : "\(prefix).\(key)", problem: problem)
        }
        guard case .object(let fields) = value else {
            throw fail("", "expected an object with \"type\" and \"url\", not \(value.kindDescription)")
        }
        guard let typeValue = fields["type"] else {
            throw fail("type", "missing; expected one of \(Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        guard case .string(let typeText) = typeValue, let kind = Kind(rawValue: typeText) else {
            throw fail("type", "expected one of \(Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \(typeValue.kindDescription)")
        }
        let allowed = kind == .pixabay ? Self.pixabayKeys : Self.commonKeys
        for key in fields.keys.sorted() where !allowed.contains(key) {
            let shown = TerminalText.sanitize(String(key.prefix(60)))
            if Self.secretKeys.contains(key) {
                throw fail(shown, "secrets may not be written in the file; put the key in an environment variable and name it with \"keyEnv\"")
            }
            throw fail(shown, "unknown key for a \(kind.rawValue) source (known: \(allowed.joined(separator: ", ")))")
        }

        func string(_ key: String) throws(ConfigError) -> String? {
            guard let value = fields[key] else { return nil }
            guard case .string(let text) = value, !text.isEmpty else {
                throw fail(key, "expected a non-empty string, not \(value.kindDescription)")
            }
            return text
        }
        func integer(_ key: String, _ range: ClosedRange<Int>) throws(ConfigError) -> Int? {
            guard let value = fields[key] else { return nil }
            guard case .number(let n) = value, n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
                throw fail(key, "expected a whole number from \(range.lowerBound) to \(range.upperBound), not \(value.kindDescription)")
            }
            return Int(n)
        }

        guard let url = try string("url") else { throw fail("url", "missing; expected the API's http:// or https:// URL") }
        let lower = url.lowercased()
        guard (lower.hasPrefix("http://") || lower.hasPrefix("https://")) && url.count > 8 else {
            throw fail("url", "expected an http:// or https:// URL, not \(ConfigValue.string(url).kindDescription)")
        }
        let name = try string("name") ?? kind.rawValue
        guard name.count <= 64, name.utf8.allSatisfy({
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E
        }) else {
            throw fail("name", "expected up to 64 letters, digits, '.', '_' or '-', not \(ConfigValue.string(name).kindDescription)")
        }
        if let keyEnv = try string("keyEnv") {
            guard keyEnv.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F }) else {
                throw fail("keyEnv", "expected the NAME of an environment variable (letters, digits, '_'), not the key itself")
            }
            self.keyEnv = keyEnv
        }
        self.kind = kind
        self.name = name
        self.url = url
        query = try string("query")
        imageType = try string("imageType")
        if let imageType, !["all", "photo", "illustration", "vector"].contains(imageType) {
            throw fail("imageType", "expected \"all\", \"photo\", \"illustration\" or \"vector\", not \(ConfigValue.string(imageType).kindDescription)")
        }
        pages = try integer("pages", 0...100_000)
        perPage = try integer("perPage", 3...200)
        pageConcurrency = try integer("pageConcurrency", 1...16)
    }

    /// The crawl configuration of this source.
    ///
    /// - Parameters:
    ///   - pages, perPage: the run's values, used when the file gives none for this source,
    ///     and always when `override` is true (the command line or environment set them).
    ///   - environment: where the key is looked up (`keyEnv`, default `PIXABAY_KEY`).
    ///   - index, path: for errors.
    /// - Throws: `ConfigError` when the key's variable is unset or empty.
    public func configuration(
        pages runPages: Int, perPage runPerPage: Int, overridePages: Bool, overridePerPage: Bool,
        environment: [String: String], index: Int, path: String
    ) throws(ConfigError) -> SourceConfiguration {
        let pages = overridePages ? runPages : (self.pages ?? runPages)
        switch kind {
        case .pixabay:
            let variable = keyEnv ?? Self.defaultKeyEnv
            guard let key = environment[variable], !key.isEmpty else {
                throw ConfigError(path: path, key: "sources[\(index)].keyEnv",
                                  problem: "the environment variable \(variable) holds no API key; set it (export \(variable)=...)")
            }
            var config = PixabaySourceConfiguration(
                url: url, key: key, pages: pages, perPage: overridePerPage ? runPerPage : (perPage ?? runPerPage))
            config.name = name
            config.query = query
            if let imageType { config.imageType = imageType }
            if let pageConcurrency { config.pageConcurrency = pageConcurrency }
            return .pixabay(config)
        case .launches:
            var config = LaunchesSourceConfiguration(url: url, pages: pages)
            config.name = name
            return .launches(config)
        }
    }
}
