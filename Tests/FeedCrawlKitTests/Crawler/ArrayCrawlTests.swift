import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

extension CrawlerTests {
    @Suite("Generic array source in the crawler")
    struct ArrayCrawlTests {
        /// A PunkAPI-style `/v2/beers?page=N&per_page=M` over `count` beers: ids 1...count, a
        /// shared placeholder image for every fifth, no image for every seventh; a page past the
        /// end is `[]` (HTTP 200), as the real server answers.
        static func beersFeed(count: Int, log: RequestLog) throws -> DemoFeedServer {
            let images = LaunchesCrawlTests.imagePaths
            return try DemoFeedServer(options: .observing(log) { request in
                guard request.path == "/v2/beers" else { return nil }
                guard let page = Int(request.query["page"] ?? ""), let perPage = Int(request.query["per_page"] ?? ""),
                      page >= 1, (1...80).contains(perPage) else {
                    return .json(Array(#"{"statusCode":400,"error":"Bad Request","message":"Invalid query params"}"#.utf8), status: 400)
                }
                let base = "http://" + (request.header("host") ?? "")
                let first = (page - 1) * perPage + 1
                let ids = first <= count ? Array(first...min(count, first + perPage - 1)) : []
                let beers = ids.map { id -> String in
                    let image = id % 7 == 0 ? "null"
                        : id % 5 == 0 ? "\"\(base)\(images[0])\"" : "\"\(base)\(images[id % images.count])\""
                    return #"{"id":\#(id),"name":"Beer \#(id)","tagline":"A Real Bitter Experience.","first_brewed":"09/2007","image_url":\#(image),"volume":{"value":20,"unit":"litres"}}"#
                }
                return .json(Array("[\(beers.joined(separator: ","))]".utf8))
            })
        }

        static func source(_ feed: DemoFeedServer, pages: Int = 10, perPage: Int = 10, name: String? = nil) -> SourceConfiguration {
            var config = ArraySourceConfiguration(url: feed.baseURL + "/v2/beers", idField: "id", imageField: "image_url", pages: pages)
            config.perPage = perPage
            if let name { config.name = name }
            return SourceConfiguration(config)
        }

        @Test func stopsAtAShortPage() async throws {
            let log = RequestLog()
            let feed = try Self.beersFeed(count: 23, log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed)], out: out.path)
            #expect(log.count(path: "/v2/beers") == 3)  // 10 + 10 + 3
            #expect(log.all.first?.query == ["page": "1", "per_page": "10"])
            let items = run.items("array")
            #expect(items.count == 23)
            #expect(items.first { $0.id == "14" }?.status == .noImage)
            #expect(items.first { $0.id == "3" }?.title == "Beer 3")
            #expect(items.filter { $0.id != "14" && $0.id != "7" && $0.id != "21" }.allSatisfy { $0.status == .downloaded })
            // Beers 5, 10, 15 and 20 share the placeholder: one download.
            #expect(log.count(path: LaunchesCrawlTests.imagePaths[0]) == 1)
            #expect(run.report("array")?.warnings == [])
        }

        @Test func stopsAtAnEmptyPageAndUsesTheConfiguredName() async throws {
            let log = RequestLog()
            let feed = try Self.beersFeed(count: 20, log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, name: "beers")], out: out.path)
            #expect(log.count(path: "/v2/beers") == 3)  // 10 + 10 + []
            #expect(run.items("beers").count == 20)
            #expect(run.items("array").isEmpty)
            #expect(run.report("beers")?.pages == 3)
        }

        @Test func respectsThePageLimit() async throws {
            let log = RequestLog()
            let feed = try Self.beersFeed(count: 100, log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, pages: 2)], out: out.path)
            #expect(log.count(path: "/v2/beers") == 2)
            #expect(run.items("array").count == 20)
        }

        @Test func anErrorObjectFailsTheSourceWithItsMessage() async throws {
            let log = RequestLog()
            let feed = try Self.beersFeed(count: 100, log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, perPage: 500)], out: out.path)
            let failure = try #require(run.report("array")?.failure)
            #expect(failure.contains("HTTP 400"))
            #expect(failure.contains("Invalid query params"))
        }

        /// Issue 26, point 3: no element limit. One page of 20,001 elements (1.1 MiB), which
        /// the 5,000-element limit of old refused, is crawled whole.
        @Test func aPageOfTwentyThousandElementsIsCrawledWhole() async throws {
            let count = 20_001
            let body = Array(("[" + (1...count).map { #"{"id":\#($0),"name":"Beer \#($0)","image_url":null,"tagline":"x"}"# }
                .joined(separator: ",") + "]").utf8)
            let log = RequestLog()
            let feed = try DemoFeedServer(options: .observing(log) { request in
                request.path == "/v2/beers" ? .json(request.query["page"] == "1" ? body : Array("[]".utf8)) : nil
            })
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, pages: 3, perPage: 1000)], out: out.path)
            #expect(run.report("array")?.failure == nil)
            let items = run.items("array")
            #expect(items.count == count)
            #expect(items.first { $0.id == "20001" }?.title == "Beer 20001")
            #expect(items.allSatisfy { $0.status == .noImage })
        }

        /// A page larger than `maxPageBytes` (`--max-page-bytes`) fails, naming the option that
        /// raises it; on a later page the pages before it are kept.
        @Test func aPageLargerThanTheLimitFailsNamingTheOption() async throws {
            let log = RequestLog()
            let feed = try Self.beersFeed(count: 30, log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed)], out: out.path) { $0.maxPageBytes = 1024 }
            let failure = try #require(run.report("array")?.failure)
            #expect(failure.hasSuffix("body larger than 1 KiB (raise it with --max-page-bytes)"), "\(failure)")
            #expect(run.items("array").isEmpty)

            // Beers 1-10 fit in 2 KiB; the page of beers 11-20 has longer ids and is cut.
            let big = try DemoFeedServer(options: .observing(RequestLog()) { request in
                guard request.path == "/v2/beers" else { return nil }
                let page = Int(request.query["page"] ?? "") ?? 0
                let pad = String(repeating: "x", count: page == 2 ? 3000 : 10)
                return .json(Array(#"[{"id":"\#(page)","name":"\#(pad)"}]"#.utf8))
            })
            defer { big.stop() }
            let second = CrawlDirectory()
            let kept = try await runCrawl([Self.source(big, pages: 3, perPage: 1)], out: second.path) { $0.maxPageBytes = 2048 }
            let report = try #require(kept.report("array"))
            #expect(report.failure == nil)
            #expect(report.warnings.contains { $0.hasPrefix("page 2: ") && $0.contains("body larger than 2 KiB (raise it with --max-page-bytes)") },
                    "\(report.warnings)")
            #expect(kept.items("array").map(\.id) == ["1"])
        }
    }
}
