import Foundation
import Testing
@testable import DemoFeed

@Suite("Demo feed: /api/")
struct PixabayRouteTests {
    @Test func pagesThroughAllHitsThenPageOutOfRange() async throws {
        var options = DemoFeedOptions()
        options.hits = 1954
        options.hitsCap = 250
        try await withDemoFeed(options: options) { feed in
            var ids: [Int] = []
            for page in 1...3 {
                let r = try FeedClient.get(feed, "/api/?key=k&q=red+flower&image_type=photo&page=\(page)&per_page=100")
                #expect(r.status == 200)
                #expect(r.header("content-type") == "application/json")
                let o = try FeedClient.object(r)
                #expect(o["total"] as? Int == 1954)
                #expect(o["totalHits"] as? Int == 250)
                let hits = try #require(o["hits"] as? [[String: Any]])
                #expect(hits.count == (page < 3 ? 100 : 50))
                ids += hits.compactMap { $0["id"] as? Int }
                for hit in hits {
                    let preview = try #require(hit["previewURL"] as? String)
                    #expect(preview.hasPrefix(feed.baseURL + "/img/preview/"))
                    #expect((hit["previewWidth"] as? Int ?? 0) <= 150 && (hit["previewHeight"] as? Int ?? 0) <= 150)
                    #expect(hit["userImageURL"] is String)
                    #expect(hit["tags"] is String && hit["user"] is String && hit["user_id"] is Int)
                }
            }
            #expect(ids.count == 250)
            #expect(Set(ids).count == 250)
            let past = try FeedClient.get(feed, "/api/?key=k&page=4&per_page=100")
            #expect(past.status == 400)
            #expect(past.text == "[ERROR 400] \"page\" is out of valid range.")
            #expect(try FeedClient.get(feed, "/api/?key=k&page=0").status == 400)
        }
    }

    @Test func defaultsAndRealWorldQuirks() async throws {
        try await withDemoFeed { feed in
            let o = try FeedClient.object(try FeedClient.get(feed, "/api/?key=any"))
            let hits = try #require(o["hits"] as? [[String: Any]])
            #expect(hits.count == 20) // per_page default
            let page = try FeedClient.get(feed, "/api/?key=any&per_page=200").text
            // isLowQuality appears both as 0 and as false; userImageURL is sometimes "".
            #expect(page.contains("\"isLowQuality\":0"))
            #expect(page.contains("\"isLowQuality\":false"))
            #expect(page.contains("\"userImageURL\":\"\""))
            #expect(page.contains("\"noAiTraining\":"))
        }
    }

    @Test func keyAndPerPageErrors() async throws {
        var options = DemoFeedOptions()
        options.apiKey = "Secret"
        try await withDemoFeed(options: options) { feed in
            let invalid = "[ERROR 400] Invalid API key. Note: This value is case-sensitive."
            for target in ["/api/", "/api/?key=secret", "/api/?key="] {
                let r = try FeedClient.get(feed, target)
                #expect(r.status == 400)
                #expect(r.text == invalid)
            }
            #expect(try FeedClient.get(feed, "/api/?key=Secret").status == 200)
            for perPage in [2, 201] {
                let r = try FeedClient.get(feed, "/api/?key=Secret&per_page=\(perPage)")
                #expect(r.status == 400)
                #expect(r.text == "[ERROR 400] \"per_page\" is out of valid range.")
            }
            for perPage in [3, 200] {
                #expect(try FeedClient.get(feed, "/api/?key=Secret&per_page=\(perPage)").status == 200)
            }
        }
        try await withDemoFeed { feed in
            let missingKey = try FeedClient.get(feed, "/api/")
            #expect(missingKey.status == 400)
            #expect(missingKey.header("x-ratelimit-limit") == nil)
        }
    }

    @Test func rateLimitAnswers429WithHeaders() async throws {
        var options = DemoFeedOptions()
        options.rateLimit = 3
        options.rateWindowSeconds = 30
        options.retryAfterSeconds = 2
        try await withDemoFeed(options: options) { feed in
            var remaining: [String] = []
            for _ in 0..<3 {
                let r = try FeedClient.get(feed, "/api/?key=k")
                #expect(r.status == 200)
                #expect(r.header("x-ratelimit-limit") == "3")
                let reset = Int(r.header("x-ratelimit-reset") ?? "") ?? -1
                #expect(reset > 0 && reset <= 30)
                remaining.append(r.header("x-ratelimit-remaining") ?? "")
            }
            #expect(remaining == ["2", "1", "0"])
            let limited = try FeedClient.get(feed, "/api/?key=k")
            #expect(limited.status == 429)
            #expect(limited.text == "API rate limit exceeded")
            #expect(limited.header("retry-after") == "2")
            #expect(limited.header("x-ratelimit-remaining") == "0")
            // Another key has its own window.
            #expect(try FeedClient.get(feed, "/api/?key=other").status == 200)
            #expect(feed.stats().rateLimited == 1)
            #expect(feed.stats().api == 5)
        }
    }

    @Test func unlimitedByDefaultButHeadersPresent() async throws {
        try await withDemoFeed { feed in
            for _ in 0..<3 {
                let r = try FeedClient.get(feed, "/api/?key=k&per_page=3")
                #expect(r.status == 200)
                #expect(r.header("x-ratelimit-limit") == "100")
            }
        }
    }

    @Test func sameSeedSameData() async throws {
        func firstPage(seed: UInt64) async throws -> String {
            var options = DemoFeedOptions()
            options.seed = seed
            return try await withDemoFeed(options: options) { feed in
                try FeedClient.get(feed, "/api/?key=k&per_page=5").text.replacingOccurrences(of: feed.baseURL, with: "")
            }
        }
        let a = try await firstPage(seed: 7), b = try await firstPage(seed: 7), c = try await firstPage(seed: 8)
        #expect(a == b)
        #expect(a != c)
    }
}
