/// One entry of a GraphQL response's `errors` array.
public struct GraphQLError: Sendable, Equatable {
    /// `message` (one line, at most 1,000 characters; "(no message)" when absent).
    public var message: String
    /// `extensions.code`, e.g. "GRAPHQL_VALIDATION_FAILED", "INTERNAL_SERVER_ERROR".
    public var code: String?
    /// `path`, elements rendered as text (`["launches", "launches", "3"]`); empty when absent.
    public var path: [String]

    /// Memberwise initialiser.
    public init(message: String, code: String? = nil, path: [String] = []) {
        self.message = message
        self.code = code
        self.path = path
    }

    /// `<message> [<code>] (path a.b.3.c)`; the code and path only when present.
    public var described: String {
        var text = message
        if let code { text += " [\(code)]" }
        if !path.isEmpty { text += " (path \(path.map { FeedText.clip(FeedText.collapsingControls($0), to: 40) }.joined(separator: ".")))" }
        return text
    }
}

/// A GraphQL response that carried `errors` and no usable `data`
/// (e.g. HTTP 400 validation failures, `PERSISTED_QUERY_NOT_FOUND`).
public struct GraphQLFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's errors, in order (at least one).
    public var errors: [GraphQLError]

    /// Whether the response's `data` was null or absent (the query was not executed); default
    /// false.
    public var withoutData: Bool

    /// The errors' messages, in order.
    public var messages: [String] { errors.map(\.message) }

    /// Creates a failure from `errors`.
    public init(errors: [GraphQLError], withoutData: Bool = false) {
        self.errors = errors
        self.withoutData = withoutData
    }

    /// `extensions.code`s that refuse a query as a whole (whatever its variables): the
    /// document (validation, parse) or the client (authentication, authorisation).
    public static let refusingCodes: Set<String> = [
        "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED", "UNAUTHENTICATED", "FORBIDDEN",
        "PERSISTED_QUERY_NOT_FOUND", "PERSISTED_QUERY_NOT_SUPPORTED",
    ]

    /// Whether the server refused the query itself rather than failed one answer: `data` was
    /// null or absent, or an error carries one of `refusingCodes`.
    public var refusesQuery: Bool {
        withoutData || errors.contains { $0.code.map(Self.refusingCodes.contains) ?? false }
    }

    /// `GraphQL error: <message> [<code>]; <message> …`
    public var description: String {
        "GraphQL error: " + errors.map { error in
            error.code.map { "\(error.message) [\($0)]" } ?? error.message
        }.joined(separator: "; ")
    }
}

/// Decodes one `errors` element without throwing (internal).
struct GraphQLRawError: Decodable {
    var error: GraphQLError

    enum Keys: String, CodingKey { case message, extensions, path }
    enum ExtensionKeys: String, CodingKey { case code }

    init(from decoder: any Decoder) {
        guard let c = try? decoder.container(keyedBy: Keys.self) else {
            let kind = FeedLooseValue(from: decoder)
            error = GraphQLError(message: kind.text.map(FeedText.field) ?? "(error entry is \(kind.kindDescription))")
            return
        }
        let message = c.loose(.message)?.text.map(FeedText.field)
        let code = (try? c.nestedContainer(keyedBy: ExtensionKeys.self, forKey: .extensions))?
            .loose(.code)?.text.map(FeedText.field)
        let path = (try? c.decode([FeedLooseValue].self, forKey: .path))?.prefix(64).compactMap { $0.text } ?? []
        error = GraphQLError(message: (message?.isEmpty ?? true) ? "(no message)" : message ?? "", code: code, path: path)
    }
}

/// The `errors` member of a response (internal): absent/null → empty; not an array → one
/// synthetic error naming the kind.
enum GraphQLRawErrors {
    static func decode<K: CodingKey>(_ c: KeyedDecodingContainer<K>, key: K) -> [GraphQLError] {
        guard let value = c.loose(key), value != .null else { return [] }
        guard value == .array else {
            return [GraphQLError(message: "malformed \"errors\" (\(value.kindDescription))")]
        }
        guard let list = try? c.decode(FeedBoundedList<GraphQLRawError>.self, forKey: key) else {
            return [GraphQLError(message: "\"errors\" has too many entries")]
        }
        return list.elements.map(\.error)
    }
}
