/// One entry of a configuration file's `sources`.
///
/// | key | sources | meaning |
/// |---|---|---|
/// | `type` | all | `pixabay`, `launches` or `array` (required) |
/// | `url` | all | the API endpoint, http:// or https:// (required) |
/// | `name` | all | name in the manifest; default the type; unique |
/// | `pages` | all | pages to fetch; default the run's `--pages` |
/// | `keyEnv` | pixabay | environment variable holding the API key; default `PIXABAY_KEY` |
/// | `query` | pixabay | search terms; default none |
/// | `imageType` | pixabay | `all`, `photo`, `illustration`, `vector`; default `all` |
/// | `perPage` | pixabay | hits per page, 3–200; default the run's `--per-page` |
/// | `pageConcurrency` | pixabay | pages fetched at once, 1–16; default 4 |
/// | `pageTTL` | all | reuse kept feed pages younger than this (`24h`); default 24h pixabay, 0 others |
/// | `images` | all | image variants to fetch, a list of names (pixabay: `preview`, `webformat`, `large`, default `["preview"]`; launches: `small`, `large`, default `["small"]`; array: `["image"]`) |
/// | `patchSize` | launches | `small` or `large`: a synonym of `images: [SIZE]` |
/// | `details` | launches | `true`: query each launch's details and fetch its large patch; default false |
/// | `pageSize` | launches | launches per page, sent as the query's `pageSize` (1–100000); default not sent (the server's 20) |
/// | `headers` | all | request headers for the feed, `{"Name": {"env": "VARIABLE"}}` (the value read from the environment) or `{"Name": "value"}` for a value that is no secret; default none |
/// | `idField`, `imageField`, `titleField` | array | element fields; defaults `id`, `image_url`, `name`/`title` |
/// | `perPage` | array | elements per page; default 25 |
public struct ConfigSource: Sendable, Equatable {
    /// One entry of a source's `headers`: a value written in the file, or the name of the
    /// environment variable holding it.
    public struct Header: Sendable, Equatable {
        public var name: String
        /// `{"env": "VARIABLE"}`: the variable's name.
        public var env: String?
        /// `"value"`: the value itself (only for names that do not carry credentials).
        public var value: String?
    }

    /// The kinds of source a file can name.
    public enum Kind: String, Sendable, CaseIterable {
        case pixabay
        case launches
        case array
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
    /// Seconds a kept feed page stays reusable.
    public var pageTTL: Double?
    /// `images` (or launches' `patchSize`) as given; checked for the source's kind.
    public var images: [String]?
    public var details: Bool?
    /// Launches per page (`pageSize`, 1–100000); default not sent.
    public var pageSize: Int?
    public var idField: String?
    public var imageField: String?
    public var titleField: String?
    /// `headers`, sorted by name.
    public var headers: [Header] = []

    static let commonKeys = ["type", "name", "url", "pages", "pageTTL", "images", "headers"]
    static let pixabayKeys = commonKeys + ["keyEnv", "query", "imageType", "perPage", "pageConcurrency"]
    static let launchesKeys = commonKeys + ["patchSize", "details", "pageSize"]
    static let arrayKeys = commonKeys + ["idField", "imageField", "titleField", "perPage"]

    static func allowedKeys(_ kind: Kind) -> [String] {
        switch kind {
        case .pixabay: return pixabayKeys
        case .launches: return launchesKeys
        case .array: return arrayKeys
        }
    }
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
        let allowed = Self.allowedKeys(kind)
        for key in fields.keys.sorted() where !allowed.contains(key) {
            let shown = TerminalText.sanitize(String(key.prefix(60)))
            if Self.secretKeys.contains(key) {
                throw fail(shown, "secrets may not be written in the file; put the key in an environment variable and name it with \"keyEnv\"")
            }
            throw fail(shown, KeySuggestion.unknownKey(key, valid: allowed, what: "key for a \(kind.rawValue) source"))
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
        perPage = try integer("perPage", kind == .array ? 1...1000 : 3...200)
        pageConcurrency = try integer("pageConcurrency", 1...16)
        pageSize = try integer("pageSize", 1...100_000)
        if let text = try string("pageTTL") {
            do {
                pageTTL = try DurationParser.parse(text)
            } catch {
                throw fail("pageTTL", "expected a duration such as \"90s\", \"10m\", \"24h\" or \"7d\": \(error)")
            }
        }
        if let text = try string("patchSize") {
            guard LaunchesQuery.PatchSize(rawValue: text.lowercased()) != nil else {
                throw fail("patchSize", "expected \"small\" or \"large\", not \(ConfigValue.string(text).kindDescription)")
            }
            images = [text]
        }
        if let value = fields["images"] {
            guard let names = value.listItems else {
                throw fail("images", "expected a list of variant names (an array, or one comma-separated string), not \(value.kindDescription)")
            }
            do {
                switch kind {
                case .pixabay: _ = try ImageVariants.parse(names, as: PixabayVariant.self)
                case .launches: _ = try ImageVariants.parse(names, as: LaunchesQuery.PatchSize.self)
                case .array: _ = try ImageVariants.parse(names, as: ImageVariants.ArrayVariant.self)
                }
            } catch {
                throw fail("images", error.description)
            }
            images = names
        }
        if let value = fields["details"] {
            guard case .bool(let flag) = value else {
                throw fail("details", "expected true or false, not \(value.kindDescription)")
            }
            details = flag
        }
        idField = try string("idField")
        imageField = try string("imageField")
        titleField = try string("titleField")
        if let value = fields["headers"] {
            guard case .object(let entries) = value else {
                throw fail("headers", "expected an object of header names, e.g. {\"Authorization\": {\"env\": \"TOKEN_VARIABLE\"}}, not \(value.kindDescription)")
            }
            for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
                let shown = TerminalText.sanitize(String(name.prefix(60)))
                switch entry {
                case .object(let spec):
                    guard spec.count == 1, case .string(let variable)? = spec["env"], !variable.isEmpty,
                          variable.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F })
                    else {
                        throw fail("headers.\(shown)", "expected {\"env\": \"VARIABLE\"}, the NAME of an environment variable (letters, digits, '_')")
                    }
                    headers.append(Header(name: name, env: variable))
                case .string(let text):
                    // Credentials never sit in the file; the text is not quoted back.
                    guard !Self.carriesCredentials(name) else {
                        throw fail("headers.\(shown)", "a secret may not be written in the file; put it in an environment variable and write {\"env\": \"VARIABLE\"}")
                    }
                    headers.append(Header(name: name, value: text))
                default:
                    throw fail("headers.\(shown)", "expected {\"env\": \"VARIABLE\"} or a string, not \(entry.kindDescription)")
                }
                do {
                    _ = try FeedHeaders.check(name: name, value: headers.last?.value ?? "x")
                } catch {
                    throw fail("headers.\(shown)", error.description)
                }
            }
        }
    }

    /// Whether a header named `name` carries credentials, so its value may only come from the
    /// environment: `Authorization`, `Proxy-Authorization`, `Cookie`, or a name holding `auth`,
    /// `key`, `token`, `secret`, `password` or `session`.
    static func carriesCredentials(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "cookie" || ["auth", "key", "token", "secret", "password", "session"].contains { lower.contains($0) }
    }

    /// The source's headers with their values read from `environment`. Throws `ConfigError`
    /// when a variable is unset or empty, or its value cannot be sent (CR, LF).
    func resolvedHeaders(environment: [String: String], index: Int, path: String) throws(ConfigError) -> [HTTPHeader] {
        var resolved: [HTTPHeader] = []
        for header in headers {
            let key = "sources[\(index)].headers.\(TerminalText.sanitize(String(header.name.prefix(60))))"
            guard let value = header.value ?? header.env.flatMap({ environment[$0] }), !value.isEmpty else {
                let variable = header.env ?? ""
                throw ConfigError(path: path, key: key, problem: "the environment variable \(variable) holds no value; set it (export \(variable)=...)")
            }
            do {
                resolved.append(try FeedHeaders.check(name: header.name, value: value))
            } catch {
                throw ConfigError(path: path, key: key, problem: error.description + (header.env.map { " (from \($0))" } ?? ""))
            }
        }
        return resolved
    }

    /// The crawl configuration of this source.
    ///
    /// - Parameters:
    ///   - pages, perPage: the run's values, used when the file gives none for this source,
    ///     and always when `override` is true (the command line or environment set them).
    ///   - headers: the run's `--header`s, sent too (replacing the file's of the same name).
    ///   - environment: where the key (`keyEnv`, default `PIXABAY_KEY`) and the headers' values
    ///     are looked up.
    ///   - index, path: for errors.
    /// - Throws: `ConfigError` when the key's variable is unset or empty.
    public func configuration(
        pages runPages: Int, perPage runPerPage: Int, overridePages: Bool, overridePerPage: Bool,
        headers runHeaders: [HTTPHeader] = [], environment: [String: String], index: Int, path: String
    ) throws(ConfigError) -> SourceConfiguration {
        let pages = overridePages ? runPages : (self.pages ?? runPages)
        let headers = FeedHeaders.merged(try resolvedHeaders(environment: environment, index: index, path: path), runHeaders)
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
            if let pageTTL { config.pageTTL = pageTTL }
            if let images, let variants = try? ImageVariants.parse(images, as: PixabayVariant.self) {
                config.variants = variants
            }
            config.headers = headers
            return .pixabay(config)
        case .launches:
            var config = LaunchesSourceConfiguration(url: url, pages: pages)
            config.name = name
            if let images, let variants = try? ImageVariants.parse(images, as: LaunchesQuery.PatchSize.self) {
                config.variants = variants
            }
            if let details { config.details = details }
            config.pageSize = pageSize
            config.headers = headers
            if let pageTTL { config.pageTTL = pageTTL }
            return .launches(config)
        case .array:
            var config = ArraySourceConfiguration(
                url: url, idField: idField ?? "id", imageField: imageField ?? "image_url", pages: pages)
            config.name = name
            config.titleField = titleField
            if let perPage { config.perPage = perPage }
            if let pageTTL { config.pageTTL = pageTTL }
            config.headers = headers
            return .array(config)
        }
    }
}
