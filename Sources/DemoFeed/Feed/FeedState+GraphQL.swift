import FeedCrawlKit
import FoundationEssentials

/// `POST /graphql`: the launches API, answering exactly the documents feedcrawl sends
/// (`LaunchesQuery`'s `LaunchList` in each form, and `LaunchDetails`), recognised by their text
/// with runs of whitespace made one space. Any other document is answered as Apollo Server
/// answers an invalid one: 400 with `errors` only (`GRAPHQL_VALIDATION_FAILED`).
extension FeedState {
    /// A GraphQL POST body; `operationName` and undeclared variables are ignored.
    private struct Request: Decodable {
        struct Variables: Decodable {
            var cursor: String?
            var pageSize: Int?
            var launchId: String?
        }

        var query: String
        var variables: Variables?
    }

    /// The patch sizes each `LaunchList` document asks for, by document: one size or both in
    /// either order, with and without `$pageSize`.
    private static let listDocuments: [String: [LaunchesQuery.PatchSize]] = {
        var documents: [String: [LaunchesQuery.PatchSize]] = [:]
        for variants: [LaunchesQuery.PatchSize] in [[.small], [.large], [.small, .large], [.large, .small]] {
            for withPageSize in [false, true] {
                documents[LaunchesQuery.listDocument(variants: variants, withPageSize: withPageSize)] = variants
            }
        }
        return documents
    }()

    /// The answer to a `/graphql` POST: 200 with `data`, or 400 with `errors`.
    func graphql(_ request: ServerRequest) -> ServerResponse {
        guard let body = try? JSONDecoder().decode(Request.self, from: Data(request.body)) else {
            return Self.graphqlError("POST body must be JSON with a 'query' string", code: "BAD_REQUEST")
        }
        let document = body.query.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let variables = body.variables ?? .init(cursor: nil, pageSize: nil, launchId: nil)
        let data: JSON
        if document == LaunchesQuery.detailsDocument {
            guard let id = variables.launchId else {
                return Self.graphqlError("Variable \"$launchId\" of required type \"ID!\" was not provided.",
                                         code: "BAD_USER_INPUT")
            }
            data = .object([("launch", Int(id).flatMap { dataset.launch($0) }.map(Self.details) ?? .null)])
        } else if let variants = Self.listDocuments[document] {
            let pageSize = variables.pageSize ?? 20
            guard pageSize >= 1 else {
                return Self.graphqlError("\"pageSize\" must be >= 1 (got \(pageSize)).", code: "BAD_USER_INPUT")
            }
            let page = dataset.launchPage(after: variables.cursor, pageSize: min(pageSize, 1000))
            let base = self.base
            let launches = page.ids.compactMap { dataset.launch($0) }.map { Self.listed($0, variants, base: base) }
            data = .object([("launches", .object([
                ("hasMore", .bool(page.hasMore)), ("cursor", .string(page.cursor)), ("launches", .array(launches)),
            ]))])
        } else {
            return Self.graphqlError("The demo feed answers only feedcrawl's LaunchList and LaunchDetails documents.",
                                     code: "GRAPHQL_VALIDATION_FAILED")
        }
        return .json(JSON.object([("data", data)]).bytes())
    }

    /// A launch as `LaunchList` selects it: `missionPatch` for one size, else one alias per size.
    private static func listed(_ launch: FeedDataset.Launch, _ variants: [LaunchesQuery.PatchSize], base: String) -> JSON {
        func patch(_ size: LaunchesQuery.PatchSize) -> JSON {
            launch.patchID.map { .string(base + FeedDataset.patchPath($0, large: size == .large)) } ?? .null
        }
        let patches = variants.count == 1 ? [("missionPatch", patch(variants[0]))] : variants.map { ($0.rawValue, patch($0)) }
        return .object([
            ("id", .string(String(launch.id))), ("site", .string(launch.site)),
            ("mission", .object([("name", .string(launch.missionName))] + patches)),
        ])
    }

    /// A launch as `LaunchDetails` selects it.
    private static func details(_ launch: FeedDataset.Launch) -> JSON {
        .object([
            ("id", .string(String(launch.id))), ("site", .string(launch.site)),
            ("rocket", .object([("name", .string(launch.rocket.name)), ("type", .string(launch.rocket.type))])),
        ])
    }

    /// 400 with one error carrying `code` in its extensions, as Apollo Server answers.
    private static func graphqlError(_ message: String, code: String) -> ServerResponse {
        let error = JSON.object([("message", .string(message)), ("extensions", .object([("code", .string(code))]))])
        return .json(JSON.object([("errors", .array([error]))]).bytes(), status: 400)
    }
}
