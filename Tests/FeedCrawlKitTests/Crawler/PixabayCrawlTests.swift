import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

extension CrawlerTests {
    @Suite("Pixabay source in the crawler")
    struct PixabayCrawlTests {
        @Test func neverRequestsPastTheLastPage() async throws {
            var options = DemoFeedOptions()
            options.hits = 11
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed, pages: 10, perPage: 5)], out: out.path)
            let stats = feed.stats()
            #expect(stats.api == 3)  // ceil(11 / 5), although 10 pages were allowed
            #expect(run.items("pixabay").count == 11)
            #expect(run.items("pixabay").allSatisfy { $0.status == .downloaded })
            #expect(run.report("pixabay")?.failure == nil)
            #expect(run.report("pixabay")?.warnings == [])
        }

        @Test func totalHitsCapBoundsThePages() async throws {
            var options = DemoFeedOptions()
            options.hits = 1954
            options.hitsCap = 12  // the real API: total 1954, totalHits capped (at 500)
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed, pages: 5, perPage: 5)], out: out.path)
            #expect(feed.stats().api == 3)
            #expect(run.items("pixabay").count == 12)
        }

        @Test func pageOutOfRangeIsTheEndNotAnError() async throws {
            let log = RequestLog()
            let options = DemoFeedOptions.observing(log) { request in
                // The server claims 500 hits but page 3 is already past its end.
                guard request.path == "/api/", request.query["page"] == "3" else { return nil }
                return .text(#"[ERROR 400] "page" is out of valid range."#, status: 400)
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            var source = PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, pages: 5, perPage: 5)
            source.pageConcurrency = 1
            source.pageTTL = 0
            let run = try await runCrawl([.pixabay(source)], out: out.path)
            let report = try #require(run.report("pixabay"))
            #expect(report.failure == nil)
            #expect(report.failedPages == 0)
            #expect(report.warnings.isEmpty)
            #expect(report.pages == 2)
            #expect(run.items("pixabay").count == 10)
            // Nothing after the end was asked for.
            #expect(log.count { $0.path == "/api/" && ["4", "5"].contains($0.query["page"] ?? "") } == 0)
            #expect(log.count { $0.path == "/api/" && $0.query["page"] == "3" } == 1)  // not retried
        }

        @Test func invalidKeyFailsTheSourceAtOnceWithoutRetrying() async throws {
            var options = DemoFeedOptions()
            options.apiKey = "the-right-key"
            options.launches = 5
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl(
                [pixabaySource(feed, key: "a-wrong-key"), launchesSource(feed, pages: 1)], out: out.path)
            let report = try #require(run.report("pixabay"))
            #expect(report.failure?.contains("Invalid API key") == true)
            #expect(report.failure?.contains("a-wrong-key") == false)
            #expect(feed.stats().api == 1)
            #expect(run.report.anySourceFailed)
            #expect(run.items("pixabay").isEmpty)
            // The other source is not affected.
            #expect(run.items("launches").count == 5)
        }

        @Test func htmlWithStatus200IsAnErrorForThatPage() async throws {
            let options = DemoFeedOptions.observing(RequestLog()) { request in
                guard request.path == "/api/", request.query["page"] == "2" else { return nil }
                return .text("<html><body>Application error</body></html>", contentType: "text/html; charset=utf-8")
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed, pages: 3, perPage: 5)], out: out.path)
            let report = try #require(run.report("pixabay"))
            #expect(report.failure == nil)
            #expect(report.failedPages == 1)
            #expect(report.pages == 2)
            let warning = try #require(report.warnings.first)
            #expect(warning.hasPrefix("page 2: "))
            #expect(warning.contains("text/html"))
            #expect(warning.contains("Application error"))
            #expect(Set(run.items("pixabay").map(\.page)) == [1, 3])
            #expect(run.manifest.run?.sources.first?.warnings == report.warnings)
        }

        @Test func htmlOnTheFirstPageFailsTheSource() async throws {
            let options = DemoFeedOptions.observing(RequestLog()) { request in
                guard request.path == "/api/" else { return nil }
                return .text("This server provides its GraphQL endpoint at <a href=\"/graphql\">/graphql</a>.",
                             contentType: "text/html")
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed)], out: out.path)
            let failure = try #require(run.report("pixabay")?.failure)
            #expect(failure.contains("expected JSON, got text/html"))
            #expect(failure.contains("GraphQL endpoint"))
        }

        @Test func unusableHitsAreRecordedWithAReasonAndDoNotSinkThePage() async throws {
            let previews = demoImagePaths
            let options = DemoFeedOptions.observing(RequestLog()) { request in
                guard request.path == "/api/" else { return nil }
                let base = "http://" + (request.header("host") ?? "")
                let hits = [
                    FeedBodies.hit(id: "\"195893\"", preview: base + previews[0], extra: #","isLowQuality":0,"collections":3,"isAiGenerated":false"#),
                    FeedBodies.hit(id: "73424", preview: base + previews[1], extra: #","isLowQuality":false,"favorites":1,"newKey":{"a":[1]}"#),
                    "null",
                    FeedBodies.hit(id: "5", preview: ""),  // no usable image at all
                    FeedBodies.hit(id: "6", preview: "ftp://example.org/6.jpg"),
                    #"{"tags":"no id","previewURL":"\#(base + previews[2])"}"#,
                ]
                return FeedBodies.pixabayPage(total: 1954, totalHits: 6, hits: hits)
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([pixabaySource(feed, pages: 1, perPage: 20)], out: out.path)
            #expect(run.report("pixabay")?.failure == nil)
            let items = run.items("pixabay")
            #expect(items.count == 6)
            #expect(run.item("pixabay", "195893")?.status == .downloaded)
            #expect(run.item("pixabay", "73424")?.status == .downloaded)
            #expect(run.item("pixabay", "5")?.status == .noImage)
            #expect(run.item("pixabay", "5")?.images == [])
            let ftp = try #require(run.item("pixabay", "6"))
            #expect(ftp.status == .rejected)
            #expect(ftp.soleImage?.status == .rejected)
            #expect(ftp.soleImage?.error?.isEmpty == false)
            #expect(ftp.error == nil, "the listing itself was fine")
            let problems = items.filter { $0.id.hasPrefix("page1-index") }
            #expect(problems.count == 2)  // the null hit and the hit without an id
            #expect(problems.allSatisfy { $0.status == .rejected && !($0.error ?? "").isEmpty })
        }

        @Test func everyVariantAskedForIsFetchedIntoItsOwnFile() async throws {
            let log = RequestLog()
            var options = DemoFeedOptions.observing(log)
            options.hits = 8
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            var config = PixabaySourceConfiguration(url: feed.pixabayURL, key: feed.apiKey, pages: 1, perPage: 8)
            config.pageTTL = 0
            config.variants = [.webformat, .preview, .large]
            let run = try await runCrawl([.pixabay(config)], out: out.path)
            let items = run.items("pixabay")
            #expect(items.count == 8)
            for item in items {
                #expect(item.images.map(\.variant) == ["webformat", "preview", "large"])
                #expect(item.status == .downloaded)
                #expect(item.image("preview")?.url.contains("/img/preview/") == true)
                #expect(item.image("webformat")?.url.contains("/img/web/") == true)
                #expect(item.image("large")?.url.contains("/img/large/") == true)
                #expect(Set(item.images.compactMap(\.file)).count == 3)
                #expect(item.pageURL?.hasPrefix("http") == true)
            }
            #expect(run.report.imageCounts == [.downloaded: 24])
            #expect(run.report.count(.downloaded) == 8)
            #expect(log.count { $0.path.hasPrefix("/img/") } == 24)
            #expect(run.manifest.run?.options["pixabay.images"] == "webformat,preview,large")
            #expect(run.manifest.run?.images == ["downloaded": 24])
            #expect(try await verifyCache(out.path).isClean)
        }
    }
}
