import FoundationEssentials

/// The JSON body of a GraphQL POST: `{query, variables?, operationName?}`.
struct GraphQLRequest: Decodable, Equatable {
    /// Any JSON value (variables).
    indirect enum Input: Decodable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([Input])
        case object([String: Input])

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let i = try? c.decode(Int.self) {
                self = .int(i)
            } else if let d = try? c.decode(Double.self) {
                self = .double(d)
            } else if let s = try? c.decode(String.self) {
                self = .string(s)
            } else if let a = try? c.decode([Input].self) {
                self = .array(a)
            } else {
                self = .object(try c.decode([String: Input].self))
            }
        }
    }

    var query: String
    var variables: [String: Input]?
    var operationName: String?

    /// Decodes a request body; nil when it is not JSON with a string `query`.
    static func decode(_ body: [UInt8]) -> GraphQLRequest? {
        try? JSONDecoder().decode(GraphQLRequest.self, from: Data(body))
    }
}
