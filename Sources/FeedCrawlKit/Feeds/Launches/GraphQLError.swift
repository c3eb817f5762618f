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
}

/// A GraphQL response that carried `errors` and no usable `data`
/// (e.g. HTTP 400 validation failures, `PERSISTED_QUERY_NOT_FOUND`).
public struct GraphQLFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's errors, in order (at least one).
    public var errors: [GraphQLError]

    /// The errors' messages, in order.
    public var messages: [String] { errors.map(\.message) }

    /// Creates a failure from `errors`.
    public init(errors: [GraphQLError]) {
        self.errors = errors
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
