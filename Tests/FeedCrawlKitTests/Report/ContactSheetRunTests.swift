import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlStorage

extension CrawlerTests {
    /// The sheet real crawls write: which items are faded, and the pages a source lost.
    @Suite("Contact sheet of a crawl")
    struct ContactSheetRunTests {
        /// Every page of the sheet in `out`, `index.html` first, one after the other.
        static func sheet(_ out: String) throws -> String {
            let names = TestDirectory.list(out).filter { FileHandle.isSheetPage($0) && $0 != ContactSheet.fileName }
            return try ([ContactSheet.fileName] + names).map { String(decoding: try FileIO.read(out + "/" + $0), as: UTF8.self) }.joined()
        }

        /// A crawl of `sources` into `out` with fast retries: its report and the archive's items.
        static func crawl(_ sources: [SourceConfiguration], out: String) async throws -> (report: CrawlReport, items: [ManifestItem]) {
            var configuration = CrawlConfiguration(outDirectory: out, sources: sources)
            configuration.retryBaseDelay = 0.01
            let report = try await Crawler(configuration: configuration).run()
            var items: [ManifestItem] = []
            try await Repository.open(try Backends.folder(out)).forEachItem { items.append($0) }
            return (report, items)
        }

        /// The ids of the faded (`old`) tiles.
        static func faded(_ html: String) -> Set<String> {
            Set(html.split(separator: "<figure ").dropFirst().filter { $0.hasPrefix("class=\"") && $0.prefix { $0 != ">" }.contains(" old\"") }
                .compactMap { figure in
                    figure.firstRange(of: "<span class=\"id\">#").map { String(figure[$0.upperBound...].prefix { $0 != "<" }) }
                })
        }

        /// Waits for the next whole second: items' `lastSeen` has one-second precision, so runs
        /// started in the same second cannot be told apart (`RunRecord.listedSince`).
        static func nextSecond() async throws {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            try await Task.sleep(nanoseconds: UInt64(1_000_000_000 - now.tv_nsec + 20_000_000))
        }

        @Test func aFirstRunFadesNothingAndALaterOneFadesExactlyWhatItNoLongerListed() async throws {
            let feed = try DemoFeedServer(options: .observing(RequestLog()))
            defer { feed.stop() }
            let out = CrawlDirectory()
            let first = try await Self.crawl([pixabaySource(feed, pages: 3, perPage: 5)], out: out.path)
            #expect(first.items.count == 15)
            let html = try Self.sheet(out.path)
            #expect(Self.faded(html).isEmpty)
            #expect(!html.contains("shown faded"))
            #expect(html.contains("holds 15 items;"))

            try await Self.nextSecond()
            let second = try await Self.crawl([pixabaySource(feed, pages: 1, perPage: 5)], out: out.path)
            #expect(second.items.count == 15)
            let notListed = Set(second.items.filter { $0.page > 1 }.map(\.id))
            #expect(notListed.count == 10)
            let again = try Self.sheet(out.path)
            #expect(Self.faded(again) == notListed)
            #expect(again.contains("(10 not listed by the last run, shown faded)"))
            #expect(again.contains("<b>pixabay</b>: 1 page, 5 items"))
            #expect(second.report.contactSheetProblem == nil)
            // Every feed page has its sheet page, and nothing else is one.
            #expect(TestDirectory.list(out.path).filter { FileHandle.isSheetPage($0) }
                == ["index-pixabay-p1.html", "index-pixabay-p2.html", "index-pixabay-p3.html", "index.html"])
        }

        @Test func aPageLostToAnErrorIsOnTheSheet() async throws {
            let options = DemoFeedOptions.observing(RequestLog()) { request in
                guard request.path == "/api/", request.query["page"] == "2" else { return nil }
                return .text("<html><body>Application error</body></html>", contentType: "text/html; charset=utf-8")
            }
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await Self.crawl([pixabaySource(feed, pages: 3, perPage: 5)], out: out.path)
            #expect(run.report.sources.first { $0.name == "pixabay" }?.failedPages == 1)
            #expect(run.report.contactSheetProblem == nil)
            let html = try Self.sheet(out.path)
            #expect(html.contains("<b>pixabay</b>: 2 pages, 10 items <span class=\"e\">— 1 page lost to an error: its items are missing</span>"))
            let warning = try #require(run.report.sources.first { $0.name == "pixabay" }?.warnings.first)
            #expect(warning.hasPrefix("page 2: "))
            #expect(html.contains("<li>" + HTMLText.escape(warning, limit: 300) + "</li>"))
            #expect(Self.faded(html).isEmpty)
        }

        /// Shards write no sheet; the merge writes the sheet of the merged archive, with its
        /// `--public-url`.
        @Test func theMergeWritesTheSheetAndShardsDoNot() async throws {
            let feed = try DemoFeedServer(options: .observing(RequestLog()))
            defer { feed.stop() }
            let out = CrawlDirectory()
            for index in 0..<2 {
                var configuration = CrawlConfiguration(outDirectory: out.path, sources: [pixabaySource(feed, pages: 2, perPage: 5)])
                configuration.retryBaseDelay = 0.01
                configuration.shard = Shard(index: index, count: 2)
                let report = try await Crawler(configuration: configuration).run()
                #expect(report.contactSheetProblem == nil)
            }
            #expect(TestDirectory.list(out.path).filter { FileHandle.isSheetPage($0) }.isEmpty)
            var merge = ShardMerge(outDirectory: out.path)
            merge.publicURL = "https://cdn.example/out/"
            let report = try await merge.run()
            #expect(report.storageProblem == nil)
            #expect(TestDirectory.list(out.path).filter { FileHandle.isSheetPage($0) }
                == ["index-pixabay-p1.html", "index-pixabay-p2.html", "index.html"])
            let html = try Self.sheet(out.path)
            #expect(html.contains("<img src=\"https://cdn.example/out/cache/"))
            #expect(html.contains("holds 10 items;"))
            #expect(Self.faded(html).isEmpty)
        }
    }
}
