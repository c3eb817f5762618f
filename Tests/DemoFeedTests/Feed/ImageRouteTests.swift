import Foundation
import Testing
@testable import DemoFeed
import FeedCrawlKit
import FeedCrawlSupport

@Suite("Demo feed: /img/ and /expected")
struct ImageRouteTests {
    @Test func previewsAreValidJPEGsWithAnnouncedSize() async throws {
        try await withDemoFeed { feed in
            let o = try FeedClient.object(try FeedClient.get(feed, "/api/?key=k&per_page=5"))
            let hits = try #require(o["hits"] as? [[String: Any]])
            var bodies: [[UInt8]] = []
            for hit in hits {
                let url = try #require(hit["previewURL"] as? String)
                let r = try FeedClient.get(feed, FeedClient.path(of: url, in: feed))
                #expect(r.status == 200)
                #expect(r.header("content-type") == "image/jpeg")
                let jpeg = try ImageChecks.jpeg(r.body)
                #expect(jpeg.width == hit["previewWidth"] as? Int)
                #expect(jpeg.height == hit["previewHeight"] as? Int)
                #expect(jpeg.components == 1)
                #expect(r.body.count >= 1400 && r.body.count <= 2600) // imageBytes 2000 ± 30 %
                bodies.append(r.body)
            }
            #expect(Set(bodies).count == bodies.count) // unique per id
            let web = try FeedClient.get(feed, FeedClient.path(of: try #require(hits[0]["webformatURL"] as? String), in: feed))
            let webJPEG = try ImageChecks.jpeg(web.body)
            #expect(webJPEG.width == hits[0]["webformatWidth"] as? Int)
        }
    }

    @Test func patchesAreValidPNGs() async throws {
        try await withDemoFeed { feed in
            let (_, body) = try FeedClient.graphql(feed, LaunchesQuery.listBody(cursor: nil, pageSize: 10, variants: [.small, .large]))
            let data = try #require(body["data"] as? [String: Any])
            let items = try #require((data["launches"] as? [String: Any])?["launches"] as? [[String: Any]])
            var checked = 0
            for item in items {
                let mission = try #require(item["mission"] as? [String: Any])
                guard let small = mission["small"] as? String, let large = mission["large"] as? String else { continue }
                for (url, side) in [(small, 64), (large, 256)] {
                    let r = try FeedClient.get(feed, FeedClient.path(of: url, in: feed))
                    #expect(r.header("content-type") == "image/png")
                    let png = try ImageChecks.png(r.body)
                    #expect(png.width == side && png.height == side)
                    #expect(png.chunks.contains("IDAT"))
                    checked += 1
                }
            }
            #expect(checked >= 10)
        }
    }

    @Test func conditionalRequestsAnswer304() async throws {
        try await withDemoFeed { feed in
            let path = try #require(feed.expectedImages.first.map { FeedClient.path(of: $0.url, in: feed) })
            let full = try FeedClient.get(feed, path)
            let etag = try #require(full.header("etag"))
            let lastModified = try #require(full.header("last-modified"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            #expect(full.header("cache-control") == "max-age=86400")
            #expect(etag == "\"" + SHA256.hex(full.body).prefix(20) + "\"")
            let byTag = try FeedClient.get(feed, path, headers: ["If-None-Match": "\"other\", \(etag)"])
            #expect(byTag.status == 304)
            #expect(byTag.body.isEmpty)
            #expect(byTag.header("content-length") == nil)
            #expect(byTag.header("etag") == etag)
            #expect(try FeedClient.get(feed, path, headers: ["If-None-Match": "\"stale\""]).status == 200)
            #expect(try FeedClient.get(feed, path, headers: ["If-Modified-Since": lastModified]).status == 304)
            #expect(try FeedClient.get(feed, path, headers: ["If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"]).status == 200)
            #expect(feed.stats().notModified == 2)
            let range = try FeedClient.get(feed, path, headers: ["Range": "bytes=0-9"])
            #expect(range.status == 206)
            #expect(range.body == Array(full.body[0..<10]))
        }
    }

    @Test func unknownImagesAre404() async throws {
        try await withDemoFeed { feed in
            for path in ["/img/preview/1.jpg", "/img/preview/abc.jpg", "/img/patch/0-small.png",
                         "/img/patch/5-medium.png", "/img/other/100000.jpg", "/nothing"] {
                let status = try FeedClient.get(feed, path).status
                #expect(status == 404, "\(path)")
            }
        }
    }

    @Test func expectedListMatchesServedContent() async throws {
        var options = DemoFeedOptions()
        options.hits = 30
        options.launches = 40
        try await withDemoFeed(options: options) { feed in
            let expected = feed.expectedImages
            let previews = expected.filter { $0.url.contains("/img/preview/") }
            let patches = expected.filter { $0.url.contains("/img/patch/") }
            #expect(previews.count == 30)
            #expect(patches.count >= 20 && patches.count < 40) // ~10 % null, multiples of 7 share one
            #expect(Set(expected.map(\.url)).count == expected.count)
            #expect(patches.allSatisfy { $0.url.hasSuffix("-small.png") })
            for item in expected {
                let r = try FeedClient.get(feed, FeedClient.path(of: item.url, in: feed))
                #expect(SHA256.hex(r.body) == item.sha256Hex)
            }
            let listed = try FeedClient.object(try FeedClient.get(feed, "/expected"))
            let images = try #require(listed["images"] as? [[String: Any]])
            #expect(images.compactMap { $0["url"] as? String } == expected.map(\.url))
            #expect(images.compactMap { $0["sha256"] as? String } == expected.map(\.sha256Hex))
            #expect(feed.stats().images == expected.count) // /expected itself is not counted
        }
    }
}
