/// One parsed HTTP/1.1 request as seen by an `HTTPServer` handler.
public struct ServerRequest: Sendable {
    /// Request method, e.g. "GET", "POST".
    public let method: String
    /// Raw request-target, e.g. "/api/?key=k&page=2".
    public let target: String
    /// Percent-decoded path, without the query.
    public let path: String
    /// Percent-decoded query parameters ("+" decodes to a space); the last value of a repeated name wins.
    public let query: [String: String]
    /// Header fields with lowercased names; repeated fields are joined with ", ".
    public let headers: [String: String]
    /// Request body (Content-Length framed; empty when absent).
    public let body: [UInt8]

    /// Creates a request (the server builds these; tests may build them directly).
    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        let (path, query) = RequestParser.splitTarget(target)
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }

    /// Value of the header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
