import DemoFeed
import Foundation
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlStorage

extension ObjectStoreCrawlTests {
    /// A contact sheet of several pages in object storage: every page is uploaded, not only
    /// `index.html`, and the extra page of an earlier, larger sheet is deleted; other objects
    /// named like it stay.
    @Test func everyPageOfTheSheetIsStoredAndAnEarlierSheetsExtraPagesGo() async throws {
        var options = DemoFeedOptions()
        options.hits = 1200
        options.hitsCap = 1200
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let tmp = temporary()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let prefix = "paged"
        let s3 = try client()
        for name in ["index-7.html", "index-notes.html"] {
            try await s3.put(key: prefix + "/" + name, bytes: Array("old".utf8), contentType: "text/html")
        }
        let result = try await run(
            ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "1", "--per-page", "200",
             "--out", "s3://\(server.bucket)/\(prefix)", "--quiet"],
            tmp: tmp, extra: ["PIXABAY_KEY": "demo"])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try await keys(prefix)
        #expect(objects.keys.filter { $0.hasPrefix("index") }.sorted() == ["index-2.html", "index-notes.html", "index.html"])
        let first = String(decoding: try await s3.get(key: prefix + "/index.html"), as: UTF8.self)
        let second = String(decoding: try await s3.get(key: prefix + "/index-2.html"), as: UTF8.self)
        #expect(first.contains("<a href=\"index-2.html\" rel=\"next\">next</a>"))
        #expect(second.contains("page 2 of 2"))
        #expect(second.contains("<img src=\"cache/"))
        #expect(second.contains("<a href=\"index.html\" rel=\"prev\">previous</a>"))
    }
}
