import FeedCrawlKit
import Foundation
import Testing
@testable import DemoFeed

@Suite("Demo feed: /graphql")
struct GraphQLRouteTests {
    /// The tutorial's `LaunchList` laid out over several lines, as a person would write it.
    static let multiLineList = """
        query LaunchList($cursor: String) {
          launches(after: $cursor) {
            hasMore
            cursor
            launches { id site mission { name missionPatch(size: SMALL) } }
          }
        }
        """

    func launches(_ body: [String: Any]) throws -> [String: Any] {
        let data = try #require(body["data"] as? [String: Any])
        return try #require(data["launches"] as? [String: Any])
    }

    func list(_ feed: DemoFeedServer, cursor: String? = nil, pageSize: Int? = nil,
              variants: [LaunchesQuery.PatchSize] = [.small]) throws -> [String: Any] {
        let (status, body) = try FeedClient.graphql(feed, LaunchesQuery.listBody(cursor: cursor, pageSize: pageSize, variants: variants))
        #expect(status == 200)
        return try launches(body)
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
                let conn = try list(feed, cursor: cursor)
                let items = try #require(conn["launches"] as? [[String: Any]])
                ids += items.compactMap { ($0["id"] as? String).flatMap { Int($0) } }
                for item in items {
                    let mission = try #require(item["mission"] as? [String: Any])
                    patches.append(mission["missionPatch"] as? String)
                    #expect(item["site"] is String && mission["name"] is String)
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

    @Test func unknownCursorRestartsPageSizeAndLayout() async throws {
        try await withDemoFeed { feed in
            let first = try list(feed)
            let stale = try list(feed, cursor: "garbage")
            #expect((first["launches"] as? [[String: Any]])?.count == 20)
            #expect(first["cursor"] as? String == stale["cursor"] as? String)
            let big = try list(feed, pageSize: 100)
            #expect((big["launches"] as? [Any])?.count == 100)
            #expect(big["hasMore"] as? Bool == false)
            let small = try list(feed, pageSize: 7)
            #expect((small["launches"] as? [Any])?.count == 7)
            #expect(small.keys.sorted() == ["cursor", "hasMore", "launches"])
            // Only whitespace differs from feedcrawl's document: the same page.
            let spread = try FeedClient.graphql(feed, Array(try JSONSerialization.data(withJSONObject: ["query": Self.multiLineList])))
            #expect(try launches(spread.body)["cursor"] as? String == first["cursor"] as? String)
        }
    }

    @Test func bothPatchSizesAreAliasedInTheOrderAsked() async throws {
        try await withDemoFeed { feed in
            let r = try FeedClient.post(feed, "/graphql", body: LaunchesQuery.listBody(cursor: nil, pageSize: 3, variants: [.large, .small]))
            let items = try #require(try launches(FeedClient.object(r))["launches"] as? [[String: Any]])
            #expect(items.count == 3)
            for item in items {
                let mission = try #require(item["mission"] as? [String: Any])
                #expect(mission.keys.sorted() == ["large", "name", "small"])
                if let large = mission["large"] as? String, let small = mission["small"] as? String {
                    #expect(large.hasSuffix("-large.png") && small.hasSuffix("-small.png"))
                }
            }
            let text = r.text
            #expect(try #require(text.range(of: #""large":"#)).lowerBound < #require(text.range(of: #""small":"#)).lowerBound)
            let large = try #require(try list(feed, pageSize: 20, variants: [.large])["launches"] as? [[String: Any]])
            let patches = large.compactMap { ($0["mission"] as? [String: Any])?["missionPatch"] as? String }
            #expect(!patches.isEmpty && patches.allSatisfy { $0.hasSuffix("-large.png") })
        }
    }

    @Test func launchDetailsAndUnknownID() async throws {
        try await withDemoFeed { feed in
            let (status, body) = try FeedClient.graphql(feed, LaunchesQuery.detailsBody(launchId: "14"))
            #expect(status == 200)
            let data = try #require(body["data"] as? [String: Any])
            let launch = try #require(data["launch"] as? [String: Any])
            #expect(launch["id"] as? String == "14")
            #expect(launch.keys.sorted() == ["id", "rocket", "site"])
            let rocket = try #require(launch["rocket"] as? [String: Any])
            #expect(rocket["name"] is String && rocket["type"] is String)
            let missing = try FeedClient.graphql(feed, LaunchesQuery.detailsBody(launchId: "99999"))
            #expect(missing.status == 200)
            let missingData = try #require(missing.body["data"] as? [String: Any])
            #expect(missingData["launch"] is NSNull)
        }
    }

    @Test func otherRequestsAnswer400WithErrors() async throws {
        try await withDemoFeed { feed in
            func expectError(_ r: RawClient.Response, code: String) throws {
                #expect(r.status == 400)
                let errors = try #require(try FeedClient.object(r)["errors"] as? [[String: Any]])
                let first = try #require(errors.first)
                #expect(first["message"] is String)
                #expect((first["extensions"] as? [String: Any])?["code"] as? String == code)
            }
            let withBooked = LaunchesQuery.detailsDocument.replacing("site", with: "site isBooked")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": "{ foo }"]), code: "GRAPHQL_VALIDATION_FAILED")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": withBooked, "variables": ["launchId": "1"]]),
                            code: "GRAPHQL_VALIDATION_FAILED")
            try expectError(try FeedClient.post(feed, "/graphql", body: Array("not json".utf8)), code: "BAD_REQUEST")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": LaunchesQuery.listDocument(withPageSize: true),
                                                                        "variables": ["pageSize": 0]]), code: "BAD_USER_INPUT")
            try expectError(try FeedClient.post(feed, "/graphql", json: ["query": LaunchesQuery.detailsDocument]), code: "BAD_USER_INPUT")
            #expect(feed.stats().graphqlErrors == 5)
            #expect(feed.stats().graphql == 5)
        }
    }
}
