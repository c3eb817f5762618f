/// One entry of a GraphQL response's `errors` array.
public struct GraphQLError: Sendable, Equatable {
    /// `message` (one line, at most 1,000 characters; "(no message)" when absent).
    public var message: String
    /// `extensions.code`, e.g. "GRAPHQL_VALIDATION_FAILED", "INTERNAL_SERVER_ERROR".
    public var code: String?
    /// `path`, elements rendered as text (`["launches", "launches", "3"]`); empty when absent.
    public var path: [String] = []

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

/// The envelope of a GraphQL response, `{"data":{"<field>":…},"errors":[…]}`, read in one pass,
/// `data` and `errors` in either order (the first of a key given twice counts) (internal).
struct GraphQLEnvelope {
    var errors: [GraphQLError] = []
    /// Whether `data` was an object (null or absent: the query was not executed).
    var hasData = false
    /// Why `data.<field>` is not usable: "missing data", "data is <kind>", "missing
    /// data.<field>" or what the field's reader said; nil when it read the field.
    var missing: String? = "missing data"

    /// Reads `bytes` (`what` names them in errors: "launches page"), `readField` reading the
    /// value of `data.<field>` and returning why it is not usable, or nil. Throws
    /// `FeedDecodeError` when the body is not JSON or not an object.
    static func read(
        _ bytes: [UInt8], what: String, field: StaticString,
        maxElements: Int = FeedJSON.maxElements(pageBytes: CrawlConfiguration().maxPageBytes),
        _ readField: (inout FeedJSONReader) throws -> String?
    ) throws -> GraphQLEnvelope {
        return try FeedJSON.read(bytes, what: what, maxElements: maxElements) { reader in
            var envelope = GraphQLEnvelope()
            guard try reader.kind() == .object else {
                return .failure(FeedDecodeError(reason: "expected a JSON object at top level, got \(try reader.value().kindDescription)"))
            }
            try reader.members(["errors", "data"]) { reader, slot in
                if slot == 0 {
                    envelope.errors = try GraphQLRawErrors.read(&reader)
                    return
                }
                guard try reader.kind() == .object else {
                    envelope.missing = "data is \(try reader.value().kindDescription)"
                    return
                }
                envelope.hasData = true
                envelope.missing = "missing data.\(field)"
                try reader.members([field]) { reader, _ in envelope.missing = try readField(&reader) }
            }
            return .success(envelope)
        }
    }
}

/// The `errors` member of a response (internal).
enum GraphQLRawErrors {
    /// Reads the value the reader is at: null → empty; not an array → one synthetic error
    /// naming the kind; otherwise one error per element, as many as there are.
    static func read(_ reader: inout FeedJSONReader) throws -> [GraphQLError] {
        guard try reader.kind() == .array else {
            let value = try reader.value()
            return value == .null ? [] : [GraphQLError(message: "malformed \"errors\" (\(value.kindDescription))")]
        }
        var errors: [GraphQLError] = []
        try reader.array { reader, _ in errors.append(try element(&reader)) }
        return errors
    }

    /// Longest `path` kept, in elements: 64.
    static let maxPathElements = 64

    /// One element: its `message` (cleaned; "(no message)" when absent or empty),
    /// `extensions.code` and `path` (elements as text, containers dropped); an element that is
    /// not an object is its text, or "(error entry is <kind>)".
    private static func element(_ reader: inout FeedJSONReader) throws -> GraphQLError {
        guard try reader.kind() == .object else {
            let kind = try reader.value()
            return GraphQLError(message: kind.text.map(FeedText.field) ?? "(error entry is \(kind.kindDescription))")
        }
        var message: String?
        var code: String?
        var path: [String]?
        var seenExtensions = false
        try reader.object { reader, key in
            if key.matches("message"), message == nil {
                message = try reader.value().text.map(FeedText.field) ?? ""
            } else if key.matches("extensions"), !seenExtensions, try reader.kind() == .object {
                seenExtensions = true
                try reader.object { reader, key in
                    if key.matches("code"), code == nil { code = try reader.value().text.map(FeedText.field) }
                }
            } else if key.matches("path"), path == nil, try reader.kind() == .array {
                var elements: [String] = []
                try reader.array { reader, index in
                    let value = try reader.value()
                    if index < maxPathElements, let text = value.text { elements.append(text) }
                }
                path = elements
            }
        }
        return GraphQLError(message: (message?.isEmpty ?? true) ? "(no message)" : message ?? "", code: code, path: path ?? [])
    }
}
