import DemoFeed
import Foundation
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlStorage

extension ObjectStoreCrawlTests {
    /// A contact sheet in object storage: every page is uploaded (a page per feed page, a feed
    /// page of more than 200 items in parts), not only `index.html`, and the pages of an
    /// earlier sheet (an earlier release's `index-7.html`, a feed page no longer held) are
    /// deleted; other objects named like them stay. A second run with nothing new uploads
    /// index.html alone.
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
        for name in ["index-7.html", "index-notes.html", "index-pixabay-p9.html"] {
            try await s3.put(key: prefix + "/" + name, bytes: Array("old".utf8), contentType: "text/html")
        }
        let arguments = ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", "1", "--per-page", "200",
                         "--out", "s3://\(server.bucket)/\(prefix)", "--quiet"]
        let result = try await run(arguments, tmp: tmp, extra: ["PIXABAY_KEY": "demo"])
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try await keys(prefix)
        let pages = ["index-launches-p1.html", "index-pixabay-p1.html", "index.html"]
        #expect(objects.keys.filter { $0.hasPrefix("index") }.sorted() == (pages + ["index-notes.html"]).sorted())
        #expect(objects[".sheet.json"] != nil)
        let first = String(decoding: try await s3.get(key: prefix + "/index.html"), as: UTF8.self)
        let pixabay = String(decoding: try await s3.get(key: prefix + "/index-pixabay-p1.html"), as: UTF8.self)
        #expect(first.contains("<a href=\"index-pixabay-p1.html\">"))
        #expect(pixabay.contains("<img src=\"cache/"))
        #expect(pixabay.contains("<a class=\"na\" href=\"index-launches-p1.html\" rel=\"prev\">previous: launches page 1</a>"))
        #expect(pixabay.contains("<a class=\"na\" href=\"index.html\">contact sheet</a>"))

        // Twice more: the first rerun lists the pages again (their images read fresh); the
        // second uploads index.html and no other page.
        #expect(try await run(arguments, tmp: tmp, extra: ["PIXABAY_KEY": "demo"]).status == 0)
        func written() async throws -> [String: String] {
            var found: [String: String] = [:]
            try await s3.listAll(prefix: prefix + "/index") { found[String($0.key.dropFirst(prefix.count + 1))] = $0.lastModified }
            return found
        }
        let before = try await written()
        try await Task.sleep(nanoseconds: 1_100_000_000)  // Last-Modified has whole seconds
        #expect(try await run(arguments, tmp: tmp, extra: ["PIXABAY_KEY": "demo"]).status == 0)
        let after = try await written()
        #expect(after.keys.sorted() == before.keys.sorted())
        #expect(after.keys.filter { after[$0] != before[$0] } == ["index.html"])
    }
}
