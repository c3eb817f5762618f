import Foundation
import Testing
@testable import DemoFeed

@Suite("Demo feed: /graphql")
struct GraphQLRouteTests {
    static let launchList = """
        query LaunchList($cursor: String) {
          launches(after: $cursor) {
            hasMore
            cursor
            launches { id site mission { name missionPatch(size: SMALL) } }
          }
        }
        """
    static let launchDetails = """
        query LaunchDetails($launchId: ID!) {
          launch(id: $launchId) { id site mission { name missionPatch(size: LARGE) } rocket { name type } isBooked }
        }
        """

    func launches(_ body: [String: Any]) throws -> [String: Any] {
        let data = try #require(body["data"] as? [String: Any])
        return try #require(data["launches"] as? [String: Any])
    }

    @Test func pagesToTheEndFollowingCursors() async throws {
        var options = DemoFeedOptions()
        options.launches = 45
        try await withDemoFeed(options: options) { feed in
            var cursor: String?
            var ids: [Int] = []
            var cursors: [String] = []
            var patches: [String?] = []
            for _ in 0..<10 {
                let (status, body) = try FeedClient.graphql(feed, Self.launchList,
                                                            variables: cursor.map { ["cursor": $0] } ?? [:])
                #expect(status == 200)
                let conn = try launches(body)
                let items = try #require(conn["launches"] as? [[String: Any]])
                ids += items.compactMap { ($0["id"] as? String).flatMap { Int($0) } }
                for item in items {
                    let mission = try #require(item["mission"] as? [String: Any])
                    patches.append(mission["missionPatch"] as? String)
                    #expect(item["__typename"] == nil)
                }
                let next = try #require(conn["cursor"] as? String)
                cursors.append(next)
                cursor = next
                if conn["hasMore"] as? Bool == false { break }
                #expect(items.count == 20)
            }
            #expect(ids == Array((1...45).reversed())) // newest first, no gaps or repeats
            #expect(cursors.count == 3)
            #expect(Set(cursors).count == 3)
            let nonNull = patches.compactMap { $0 }
            #expect(nonNull.count < patches.count) // some launches have no patch
            #expect(Set(nonNull).count < nonNull.count) // some share one patch URL
            #expect(nonNull.allSatisfy { $0.hasPrefix(feed.baseURL + "/img/patch/") && $0.hasSuffix("-small.png") })
        }
    }

    @Test func unknownCursorRestartsAndPageSizeVariable() async throws {
        try await withDemoFeed { feed in
            let first = try launches(try FeedClient.graphql(feed, Self.launchList).body)
            let stale = try launches(try FeedClient.graphql(feed, Self.launchList, variables: ["cursor": "garbage"]).body)
            #expect((first["launches"] as? [[String: Any]])?.count == 20)
            #expect(first["cursor"] as? String == stale["cursor"] as? String)
            let q = "query P($n: Int, $c: String) { launches(pageSize: $n, after: $c) { cursor hasMore launches { id } } }"
            let big = try launches(try FeedClient.graphql(feed, q, variables: ["n": 100]).body)
            #expect((big["launches"] as? [Any])?.count == 100)
            #expect(big["hasMore"] as? Bool == false)
            let literal = try launches(try FeedClient.graphql(feed, "{ launches(pageSize: 7) { launches { id } } }").body)
            #expect((literal["launches"] as? [Any])?.count == 7)
            #expect(literal.keys.sorted() == ["launches"]) // only selected fields
        }
    }

    @Test func launchDetailsAndUnknownID() async throws {
        try await withDemoFeed { feed in
            let (status, body) = try FeedClient.graphql(feed, Self.launchDetails, variables: ["launchId": "14"])
            #expect(status == 200)
            let data = try #require(body["data"] as? [String: Any])
            let launch = try #require(data["launch"] as? [String: Any])
            #expect(launch["id"] as? String == "14")
            #expect(launch["isBooked"] as? Bool == false)
            let rocket = try #require(launch["rocket"] as? [String: Any])
            #expect(rocket["name"] is String && rocket["type"] is String)
            let mission = try #require(launch["mission"] as? [String: Any])
            #expect((mission["missionPatch"] as? String)?.hasSuffix("-large.png") == true)
            let missing = try FeedClient.graphql(feed, Self.launchDetails, variables: ["launchId": "99999"])
            #expect(missing.status == 200)
            let missingData = try #require(missing.body["data"] as? [String: Any])
            #expect(missingData["launch"] is NSNull)
        }
    }

    @Test func typenameOnlyWhenAskedAndAliases() async throws {
        try await withDemoFeed { feed in
            let q = "query { launches(pageSize: 1) { __typename launches { __typename key: id } } }"
            let conn = try launches(try FeedClient.graphql(feed, q).body)
            #expect(conn["__typename"] as? String == "LaunchConnection")
            let item = try #require((conn["launches"] as? [[String: Any]])?.first)
            #expect(item["__typename"] as? String == "Launch")
            #expect(item["key"] as? String == "100")
        }
    }

    @Test func invalidRequestsAnswer400WithErrors() async throws {
        try await withDemoFeed { feed in
            func expectError(_ r: RawClient.Response, code: String) throws {
                #expect(r.status == 400)
                let errors = try #require(try FeedClient.object(r)["errors"] as? [[String: Any]])
                let first = try #require(errors.first)
                #expect(first["message"] is String)
                #expect((first["extensions"] as? [String: Any])?["code"] as? String == code)
            }
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": "{ foo }"]), code: "GRAPHQL_VALIDATION_FAILED")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": "{ launches { mySite } }"]),
                            code: "GRAPHQL_VALIDATION_FAILED")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": "{ launches { cursor "]),
                            code: "GRAPHQL_PARSE_FAILED")
            try expectError(try FeedClient.post(feed, "/graphql", body: Array("not json".utf8)), code: "BAD_REQUEST")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": "{ launches(pageSize: 0) { cursor } }"]),
                            code: "BAD_USER_INPUT")
            #expect(feed.stats().graphqlErrors == 5)
            #expect(feed.stats().graphql == 5)
        }
    }

    @Test func parserHandlesFragmentsDirectivesAndComments() throws {
        let doc = try GraphQLParser.parse("""
            # comment
            query Q($c: String = "x", $skip: Boolean!) {
              a: launches(after: $c) { ...Conn @skip(if: $skip) }
            }
            fragment Conn on LaunchConnection { cursor, hasMore }
            """)
        #expect(doc.operations.count == 1)
        #expect(doc.operations[0].variables.map(\.type) == ["String", "Boolean!"])
        #expect(doc.fragments["Conn"]?.selections.count == 2)
        #expect(GraphQLSchema.validate(doc.operations[0], in: doc).isEmpty)
        #expect(throws: GraphQLLexer.SyntaxError.self) { try GraphQLParser.parse("query { a(x: ) }") }
        #expect(throws: GraphQLLexer.SyntaxError.self) { try GraphQLParser.parse(String(repeating: "{a", count: 100)) }
    }
}
