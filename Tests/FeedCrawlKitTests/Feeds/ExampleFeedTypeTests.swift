import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

/// A new feed type is one folder and one registration. This one, made here and not shipped,
/// reads a text file whose lines are image URLs.
struct LinesFeed: FeedSource {
    static let type = "lines"
    static let variantNames = ["image"]

    static func make(_ entry: FeedSourceEntry) throws(ConfigError) -> LinesFeed {
        LinesFeed(name: entry.name, url: entry.url, pages: try entry.pages, headers: try entry.resolvedHeaders())
    }

    var name: String
    var url: String
    var pages = 1
    var pageTTL: Double = 0
    var headers: [HTTPHeader] = []
    var variantList: [String] { Self.variantNames }

    func crawl(_ context: FeedCrawlContext) async -> SourceReport {
        var report = SourceReport(name: name)
        do {
            let body = try await context.client.fetch(HTTPRequest(url: url)).response.body
            let items = String(decoding: body, as: UTF8.self).split(separator: "\n").enumerated().map { index, line in
                FeedItem(source: name, id: String(index), page: 1, images: [FeedImage(variant: "image", url: String(line))])
            }
            (report.pages, report.items) = (1, items.count)
            await context.pipeline.submit(items, group: context.group)
        } catch {
            report.failure = context.redactor.redact("\(error)")
        }
        return report
    }
}

@Suite struct ExampleFeedTypeTests {
    @Test func aTypeMadeInATestIsConfiguredAndCrawledThroughTheSeam() async throws {
        let log = RequestLog()
        let feed = try DemoFeedServer(options: .observing(log) { request in
            guard request.path == "/lines.txt", request.header("x-token") == "t0ken-Sekret" else { return nil }
            let base = "http://" + (request.header("host") ?? "")
            return .text(demoImagePaths.prefix(3).map { base + $0 }.joined(separator: "\n"))
        })
        defer { feed.stop() }
        let url = feed.launchesURL.replacing("/graphql", with: "/lines.txt")
        let file = try ConfigFile.parse(
            Array(#"{"sources": [{"type": "lines", "url": "\#(url)", "headers": {"X-Token": {"env": "LINES_TOKEN"}}}]}"#.utf8),
            path: "/etc/f.json", types: FeedSources.registered + [LinesFeed.self])
        let source = try #require(file.sources?.first).configuration(
            pages: 5, perPage: 100, overridePages: false, overridePerPage: false,
            environment: ["LINES_TOKEN": "t0ken-Sekret"])
        let out = CrawlDirectory()
        let run = try await runCrawl([source], out: out.path)
        #expect(run.items("lines").map(\.status) == [.downloaded, .downloaded, .downloaded])
        #expect(run.manifest.run?.options["lines.type"] == "lines")
        #expect(run.manifest.run?.options["lines.headers"] == "X-Token")
        #expect(log.count(path: "/lines.txt") == 1)
    }
}
