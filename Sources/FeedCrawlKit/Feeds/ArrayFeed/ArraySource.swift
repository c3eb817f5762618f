import FeedCrawlHTTP

/// A page-numbered feed answering bare JSON arrays (PunkAPI-style `?page=N&per_page=M`): the
/// `array` feed type.
///
/// Configuration file keys besides the common ones (`FeedSourceEntry.commonKeys`): `idField`,
/// `imageField`, `titleField` (element fields; defaults `id`, `image_url`, `name`/`title`),
/// `perPage` (elements per page, 1–1000; default 25).
public struct ArraySourceConfiguration: FeedSource {
    /// The endpoint, e.g. `https://api.punkapi.com/v2/beers`.
    public var url: String
    /// Field holding each element's id (dotted paths reach into objects); default `id`.
    public var idField: String = "id"
    /// Field holding each element's image URL; default `image_url`.
    public var imageField: String = "image_url"
    /// Field holding the title; default nil (tries `name`, then `title`).
    public var titleField: String? = nil
    /// Pages to fetch at most; default 5.
    public var pages: Int = 5
    /// Elements per page (`per_page`); default 25 (PunkAPI's default; it accepts 1...80).
    public var perPage: Int = 25
    /// The source's name in the manifest; default `array`.
    public var name: String = "array"
    /// Fetched pages younger than this are reused; default 0.
    public var pageTTL: Double = 0
    /// Headers sent with every feed request (values are secrets); default none.
    public var headers: [HTTPHeader] = []

    public init(url: String, idField: String = "id", imageField: String = "image_url", pages: Int = 5) {
        self.url = url
        self.idField = idField
        self.imageField = imageField
        self.pages = pages
    }
}

extension ArraySourceConfiguration {
    public static let type = "array"
    public static var variantNames: [String] { [ArrayPage.variant] }
    public static let fileKeys: [FeedFileKey] = [
        .init("idField", "the element field holding the id (default id)"),
        .init("imageField", "the element field holding the image URL (default image_url)"),
        .init("titleField", "the element field holding the title (default name, then title)"),
        .init("perPage", "elements per page (default 25)"),
    ]
    public static let commandLineOptions: [FeedOption] = [
        .value("--array-url", "URL", defaultText: "none",
               "A page-numbered feed of bare JSON arrays, fetched as URL?page=N&per_page=M "
                   + "(PunkAPI-style); stops at a short page."),
        .value("--array-id-field", "F", defaultText: "id", "Field with each element's id (a.b reaches into objects)."),
        .value("--array-image-field", "F", defaultText: "image_url", "Field with each element's image URL."),
        .value("--array-title-field", "F", defaultText: "name, else title", "Field with each element's title."),
        .value("--array-name", "NAME", defaultText: "array",
               "The array source's name in the manifest (and its folder name)."),
        .value("--array-per-page", "N", defaultText: "25", "Elements per array page (per_page), 1 to 1000."),
    ]

    public static func check(option name: String, value: String) throws(FeedOptionError) {
        switch name {
        case "--array-url": try FeedOptionError.checkURL(name, value)
        case "--array-id-field", "--array-image-field", "--array-title-field":
            guard !value.isEmpty, value.utf8.count <= 200 else {
                throw FeedOptionError("\(name) takes a field name (dots reach into objects)")
            }
        case "--array-name":
            let others = FeedSources.registered.map { $0.type }.filter { $0 != type }
            guard SourceConfiguration.isValidName(value), !others.contains(value) else {
                throw FeedOptionError("--array-name takes 1 to 64 of A-Z a-z 0-9 . _ - (not \(others.joined(separator: " or "))), not '\(value)'")
            }
        case "--array-per-page": _ = try FeedOptionError.integer(name, value, in: 1...1000)
        default: break
        }
    }

    public static func make(_ commandLine: FeedCommandLine) throws(FeedOptionError) -> Self? {
        guard let url = commandLine.last("--array-url") else {
            if commandLine.has("--array-id-field", "--array-image-field", "--array-title-field") {
                throw FeedOptionError("the --array-... field options need --array-url")
            }
            return nil
        }
        var config = ArraySourceConfiguration(
            url: url, idField: commandLine.last("--array-id-field") ?? "id",
            imageField: commandLine.last("--array-image-field") ?? "image_url", pages: commandLine.pages)
        config.titleField = commandLine.last("--array-title-field")
        if let text = commandLine.last("--array-per-page") {
            config.perPage = try FeedOptionError.integer("--array-per-page", text, in: 1...1000)
        }
        if let name = commandLine.last("--array-name") { config.name = name }
        if let ttl = commandLine.pageTTL { config.pageTTL = ttl }
        config.headers = commandLine.headers
        return config
    }

    public static func shown(option name: String, in commandLine: FeedCommandLine) -> FeedSetting? {
        switch name {
        case "--array-name": return .string(commandLine.last(name) ?? "array")
        case "--array-per-page": return .int(commandLine.last(name).flatMap(Int.init) ?? 25)
        default: return commandLine.last(name).map { .string($0) }
        }
    }

    public static func make(_ entry: FeedSourceEntry) throws(ConfigError) -> Self {
        var config = ArraySourceConfiguration(
            url: entry.url, idField: try entry.string("idField") ?? "id",
            imageField: try entry.string("imageField") ?? "image_url", pages: try entry.pages)
        config.name = entry.name
        config.titleField = try entry.string("titleField")
        if let perPage = try entry.integer("perPage", 1...1000) { config.perPage = perPage }
        if let pageTTL = entry.pageTTL { config.pageTTL = pageTTL }
        config.headers = try entry.resolvedHeaders()
        return config
    }

    public var variantList: [String] { [ArrayPage.variant] }

    /// The URL of page `page`: `<url>?page=N&per_page=M` (or `&…` after a query already in
    /// `url`); a page or `perPage` below 1 is sent as 1.
    public func pageURL(_ page: Int) -> String {
        FeedPercentEncoding.appendingQuery(to: url, [("page", String(max(page, 1))), ("per_page", String(max(perPage, 1)))])
    }

    public func settings(_ redactor: SecretRedactor) -> [(key: String, value: FeedSetting)] {
        var settings: [(key: String, value: FeedSetting)] = [
            ("perPage", .int(perPage)), ("idField", .string(idField)), ("imageField", .string(imageField)),
        ]
        if let titleField { settings.append(("titleField", .string(titleField))) }
        return settings
    }

    /// Pages through the feed one page after another, until an empty or short page, the page
    /// limit, or a page of ids already seen.
    public func crawl(_ context: FeedCrawlContext) async -> SourceReport {
        var report = SourceReport(name: name)
        guard pages > 0 else { return report }
        var paging = ArrayPaging(
            requestedPages: pages, perPage: perPage,
            firstPage: context.shard?.firstPage(source: name) ?? 1, stride: context.shard?.count ?? 1)
        guard paging.hasPage else { return report }
        let redactor = context.redactor
        await context.walkPages(&paging, into: &report, request: { HTTPRequest(url: pageURL($0.page)) }, read: { reply, number, report in
            do {
                if let problem = FeedResponseCheck.problem(reply.response, acceptErrorStatusJSON: false, redactor: redactor) {
                    throw FeedClient.Failure(description: problem)
                }
                return try ArrayPage.decode(
                    reply.response.body, page: number, idField: idField, imageField: imageField, titleField: titleField,
                    source: name, maxElements: FeedJSON.maxElements(pageBytes: context.client.limits.maxBytes))
            } catch {
                report.readFailed(page: number, reply.located(redactor.redact("\(error)")))
                return nil
            }
        })
        return report
    }
}
