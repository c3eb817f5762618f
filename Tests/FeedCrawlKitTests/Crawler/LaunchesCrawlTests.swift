import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

extension CrawlerTests {
    @Suite("Launches source in the crawler")
    struct LaunchesCrawlTests {
        static var imagePaths: [String] { demoImagePaths }

        /// A feed whose LaunchList answers come from `pages` (keyed by the `after` cursor, "" for
        /// none); `launch(id)` builds a launch whose patch is a real image on the feed.
        static func scriptedFeed(
            log: RequestLog = RequestLog(),
            _ pages: @escaping @Sendable (_ cursor: String, _ base: String) -> ServerResponse?
        ) throws -> DemoFeedServer {
            try DemoFeedServer(options: .observing(log) { request in
                guard request.path == "/graphql", isLaunchList(request) else { return nil }
                return pages(cursorOf(request) ?? "", "http://" + (request.header("host") ?? ""))
            })
        }

        static func launch(_ id: Int, base: String) -> String {
            FeedBodies.launch(id: String(id), mission: "Mission \(id)", patch: base + imagePaths[id % imagePaths.count])
        }

        @Test func stopsWhenHasMoreIsFalseAndSendsPageSizeOnlyWhenSet() async throws {
            let log = RequestLog()
            var options = DemoFeedOptions.observing(log)
            options.launches = 30
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 5)], out: out.path)
            let lists = log.all.filter { $0.path == "/graphql" }
            #expect(lists.count == 2)  // 20 + 10, then hasMore is false
            #expect(lists.allSatisfy { !$0.body.contains("pageSize") })
            #expect(run.items("launches").count == 30)
            #expect(run.report("launches")?.warnings == [])
            // About one launch in ten has no patch: no-image, not a failure.
            let statuses = Set(run.items("launches").map(\.status))
            #expect(statuses.isSubset(of: [.downloaded, .noImage]))
            #expect(run.items("launches").contains { $0.status == .noImage && $0.images.isEmpty })
            #expect(run.items("launches").allSatisfy { $0.images.map(\.variant) == ($0.images.isEmpty ? [] : ["small"]) })

            // With a page size set, pageSize is declared and sent.
            var sized = LaunchesSourceConfiguration(url: feed.launchesURL, pages: 10)
            sized.pageSize = 7
            let before = lists.count
            let sizedRun = try await runCrawl([.launches(sized)], out: CrawlDirectory().path)
            let sizedLists = log.all.filter { $0.path == "/graphql" }.dropFirst(before)
            #expect(sizedLists.count == 5)  // 7 + 7 + 7 + 7 + 2
            #expect(sizedLists.allSatisfy { $0.body.contains(#""pageSize":7"#) && $0.body.contains("$pageSize: Int") })
            #expect(sizedRun.items("launches").count == 30)
            #expect(sizedRun.manifest.run?.options["launches.pageSize"] == "7")
        }

        @Test func repeatedCursorStopsWithAWarning() async throws {
            let log = RequestLog()
            let feed = try Self.scriptedFeed(log: log) { cursor, base in
                switch cursor {
                case "": return FeedBodies.launchesPage(cursor: "1603553460", hasMore: true, launches: (6...10).reversed().map { Self.launch($0, base: base) })
                // Flights 105 and 109 share a cursor in the hosted data: the next page ends on it again.
                default: return FeedBodies.launchesPage(cursor: "1603553460", hasMore: true, launches: (1...5).reversed().map { Self.launch($0, base: base) })
                }
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 10)], out: out.path)
            #expect(log.count(path: "/graphql") == 2)
            #expect(run.items("launches").count == 10)
            let report = try #require(run.report("launches"))
            #expect(report.failure == nil)
            #expect(report.warnings == [#"launches page 2 returned cursor "1603553460", the cursor just sent; stopping to avoid a loop"#])
        }

        @Test func unknownCursorRestartingAtPageOneIsCaught() async throws {
            let log = RequestLog()
            let feed = try Self.scriptedFeed(log: log) { cursor, base in
                // The server restarts from page 1 on a cursor it does not know ("stale").
                let first = FeedBodies.launchesPage(cursor: "stale", hasMore: true, launches: (6...10).reversed().map { Self.launch($0, base: base) })
                return cursor == "" || cursor == "stale" ? first : nil
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 10)], out: out.path)
            #expect(log.count(path: "/graphql") == 2)
            #expect(run.items("launches").count == 5)
            #expect(run.items("launches").allSatisfy { $0.page == 1 })
            #expect(run.report("launches")?.warnings.contains { $0.contains("the cursor just sent") } == true)
        }

        @Test func itemsAreDeduplicatedByID() async throws {
            let feed = try Self.scriptedFeed { cursor, base in
                switch cursor {
                case "": return FeedBodies.launchesPage(cursor: "c1", hasMore: true, launches: (6...10).reversed().map { Self.launch($0, base: base) })
                case "c1": return FeedBodies.launchesPage(cursor: "c2", hasMore: false, launches: (2...6).reversed().map { Self.launch($0, base: base) } + [Self.launch(9, base: base)])
                default: return nil
                }
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 10)], out: out.path)
            let ids = run.items("launches").map(\.id)
            #expect(ids.count == 9)
            #expect(Set(ids) == Set((2...10).map(String.init)))
            #expect(run.item("launches", "6")?.page == 1)
            #expect(run.report("launches")?.items == 9)
        }

        @Test func partialErrorsKeepTheDataAndAreRecorded() async throws {
            let feed = try Self.scriptedFeed { _, base in
                let errors = #"[{"message":"Launch 85 could not be loaded.","locations":[{"line":1,"column":70}],"path":["launches","launches",1],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]"#
                return FeedBodies.launchesPage(cursor: "1500000000", hasMore: false, launches: [
                    Self.launch(86, base: base),
                    "null",
                    FeedBodies.launch(id: "84", site: nil, mission: nil, patch: nil),
                    FeedBodies.launch(id: "83", site: "CCAFS SLC 40", mission: "Amos-17", patch: nil),
                ], errors: errors)
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed)], out: out.path)
            let report = try #require(run.report("launches"))
            #expect(report.failure == nil)
            #expect(report.warnings.contains { $0.contains("Launch 85 could not be loaded.") })
            #expect(run.item("launches", "86")?.status == .downloaded)
            let nullElement = try #require(run.item("launches", "page1-index1"))
            #expect(nullElement.status == .rejected)
            #expect(nullElement.error?.contains("Launch 85 could not be loaded.") == true)
            #expect(run.item("launches", "84")?.status == .noImage)
            #expect(run.item("launches", "84")?.author == nil)
            #expect(run.item("launches", "83")?.status == .noImage)
            #expect(run.item("launches", "83")?.title == "Amos-17")
        }

        @Test func errorsWithoutDataFailTheSourceWithTheServersMessage() async throws {
            let feed = try Self.scriptedFeed { _, _ in
                .json(Array(#"{"errors":[{"message":"Variable \"$cursor\" of type \"Int\" used in position expecting type \"String\".","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}"#.utf8), status: 400)
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed)], out: out.path)
            let failure = try #require(run.report("launches")?.failure)
            #expect(failure.contains("used in position expecting type"))
            #expect(failure.contains("GRAPHQL_VALIDATION_FAILED"))
            #expect(run.report.anySourceFailed)
        }

        @Test func htmlFromTheServerRootFailsTheSource() async throws {
            let feed = try Self.scriptedFeed { _, _ in
                .text(#"This server provides its GraphQL endpoint at <a href="/graphql">/graphql</a>."#, contentType: "text/html; charset=utf-8")
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed)], out: out.path)
            let failure = try #require(run.report("launches")?.failure)
            #expect(failure.contains("expected JSON, got text/html"))
        }

        @Test func largePatchSizeIsListedWhenAskedFor() async throws {
            var options = DemoFeedOptions()
            options.launches = 5
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 1, variants: [.large])], out: out.path)
            let images = run.items("launches").flatMap(\.images)
            #expect(!images.isEmpty)
            #expect(images.allSatisfy { $0.variant == "large" && $0.url.hasSuffix("-large.png") })
            #expect(run.items("launches").allSatisfy { $0.status == .downloaded || $0.status == .noImage })
        }

        @Test func bothSizesInTheOrderAskedEachItsOwnFile() async throws {
            let log = RequestLog()
            var options = DemoFeedOptions.observing(log)
            options.launches = 12
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 1, variants: [.large, .small])], out: out.path)
            let withImages = run.items("launches").filter { !$0.images.isEmpty }
            #expect(!withImages.isEmpty)
            for item in withImages {
                #expect(item.images.map(\.variant) == ["large", "small"])
                #expect(item.images.allSatisfy { $0.status == .downloaded })
                #expect(item.image("large")?.file != item.image("small")?.file)
                #expect(item.image("large")?.url == item.image("small")?.url.replacing("-small.png", with: "-large.png"))
            }
            // The listing asked both sizes in one query; no details query was made.
            #expect(log.count { $0.path == "/graphql" } == 1)
            #expect(try await verifyCache(out.path).isClean)
        }
    }
}
