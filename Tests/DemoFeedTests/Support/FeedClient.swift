import Foundation
@testable import DemoFeed

/// Small helpers over RawClient for the feed tests (JSON via Foundation, tests only).
enum FeedClient {
    static func get(_ feed: DemoFeedServer, _ target: String, headers: [String: String] = [:]) throws -> RawClient.Response {
        try RawClient.get(port: feed.port, target, headers: headers)
    }

    static func post(_ feed: DemoFeedServer, _ target: String, json: Any) throws -> RawClient.Response {
        let body = try JSONSerialization.data(withJSONObject: json)
        return try post(feed, target, body: Array(body))
    }

    static func post(_ feed: DemoFeedServer, _ target: String, body: [UInt8]) throws -> RawClient.Response {
        let c = try RawClient(port: feed.port)
        try c.request("POST", target, headers: ["Content-Type": "application/json", "Connection": "close"], body: body)
        return try c.readResponse()
    }

    static func object(_ r: RawClient.Response) throws -> [String: Any] {
        guard let o = try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any] else {
            throw RawClient.Failure(description: "not a JSON object: \(r.text.prefix(200))")
        }
        return o
    }

    /// Posts a GraphQL request body (e.g. `LaunchesQuery.listBody`) and returns (status, decoded body).
    static func graphql(_ feed: DemoFeedServer, _ body: [UInt8]) throws -> (status: Int, body: [String: Any]) {
        let r = try post(feed, "/graphql", body: body)
        return (r.status, try object(r))
    }

    static func path(of url: String, in feed: DemoFeedServer) -> String {
        url.hasPrefix(feed.baseURL) ? String(url.dropFirst(feed.baseURL.count)) : url
    }
}
