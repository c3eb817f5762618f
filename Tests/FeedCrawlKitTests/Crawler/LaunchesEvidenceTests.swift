import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

extension CrawlerTests {
    /// Issue 26: paging that ends on evidence, `pageSize`, answers read by path, details the
    /// server refuses, retried or misses, over loopback through the real engine.
    @Suite("Launches: paging on evidence, errors by path, details")
    struct LaunchesEvidenceTests {
        /// The tutorial's `paginateResults` over launches `count...1` (newest first), cursor
        /// "c<id>" except where `sharedCursor` gives a launch another's; unknown cursor → page 1.
        static func tutorialPage(
            after: String, pageSize: Int = 20, count: Int = 110, sharedCursor: [Int: Int] = [:], base: String
        ) -> ServerResponse {
            let ids = Array((1...count).reversed())
            let cursor = { (id: Int) in "c\(sharedCursor[id] ?? id)" }
            var start = 0
            if !after.isEmpty, let index = ids.firstIndex(where: { cursor($0) == after }) { start = index + 1 }
            let page = Array(ids[min(start, ids.count)...].prefix(pageSize))
            guard let last = page.last else { return FeedBodies.launchesPage(cursor: "", hasMore: false, launches: []) }
            return FeedBodies.launchesPage(
                cursor: cursor(last), hasMore: cursor(last) != cursor(1),
                launches: page.map { LaunchesCrawlTests.launch($0, base: base) })
        }

        static func source(_ feed: DemoFeedServer, pages: Int = 5, details: Bool = false, pageSize: Int? = nil) -> SourceConfiguration {
            var config = LaunchesSourceConfiguration(url: feed.launchesURL, pages: pages)
            config.details = details
            config.pageSize = pageSize
            return .launches(config)
        }

        @Test func launchesSharingACursorFarApartAreAllReached() async throws {
            // Page 2 ends on launch 71, whose cursor is launch 105's: the next page starts after
            // 105 and holds only launches already seen. Before, the crawl stopped at 40 of 110.
            let log = RequestLog()
            let feed = try LaunchesCrawlTests.scriptedFeed(log: log) { cursor, base in
                Self.tutorialPage(after: cursor, sharedCursor: [71: 105], base: base)
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 20)], out: out.path)
            #expect(run.items("launches").count == 110)
            #expect(Set(run.items("launches").map(\.id)) == Set((1...110).map(String.init)))
            #expect(log.count(path: "/graphql") == 8)
            let report = try #require(run.report("launches"))
            #expect(report.warnings == [])
            #expect(report.items == 110)
        }

        @Test func aCursorAlreadySentOrAnEmptyPageStopsWithAWarningNamingIt() async throws {
            let log = RequestLog()
            let repeating = try LaunchesCrawlTests.scriptedFeed(log: log) { cursor, base in
                // Launches 109 and 105 share a cursor; with pages of one the chain loops.
                Self.tutorialPage(after: cursor, pageSize: 1, sharedCursor: [109: 105], base: base)
            }
            defer { repeating.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(repeating, pages: 1000)], out: out.path)
            #expect(log.count(path: "/graphql") == 6)
            #expect(run.items("launches").map(\.id).sorted() == (105...110).map(String.init))
            #expect(run.report("launches")?.warnings
                == [#"launches page 6 returned cursor "c105", already sent for page 3; stopping to avoid a loop"#])

            let emptyLog = RequestLog()
            let empty = try LaunchesCrawlTests.scriptedFeed(log: emptyLog) { cursor, base in
                cursor.isEmpty
                    ? FeedBodies.launchesPage(cursor: "c1", hasMore: true, launches: [LaunchesCrawlTests.launch(2, base: base)])
                    : FeedBodies.launchesPage(cursor: cursor + "x", hasMore: true, launches: [])
            }
            defer { empty.stop() }
            let emptyOut = CrawlDirectory()
            let emptyRun = try await runCrawl([launchesSource(empty, pages: 1000)], out: emptyOut.path)
            #expect(emptyLog.count(path: "/graphql") == 2)  // before: 999 empty pages
            #expect(emptyRun.items("launches").count == 1)
            #expect(emptyRun.report("launches")?.warnings == ["launches page 2 is empty although hasMore is true; stopping"])
        }

        @Test func anErrorAtAPatchFailsThatImageNamingTheLaunchAndThePath() async throws {
            let feed = try LaunchesCrawlTests.scriptedFeed { _, base in
                let errors = #"[{"message":"Patch store unavailable","path":["launches","launches",1,"mission","missionPatch"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]"#
                return FeedBodies.launchesPage(cursor: "c1", hasMore: false, launches: [
                    LaunchesCrawlTests.launch(10, base: base),
                    FeedBodies.launch(id: "9", mission: "Mission 9", patch: nil),
                    FeedBodies.launch(id: "8", mission: "Mission 8", patch: nil),
                ], errors: errors)
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed)], out: out.path)
            let failed = try #require(run.item("launches", "9"))
            #expect(failed.status == .failed)
            let image = try #require(failed.soleImage)
            #expect(image.status == .failed)
            #expect(image.error == "launch 9: Patch store unavailable [INTERNAL_SERVER_ERROR] (path launches.launches.1.mission.missionPatch)")
            #expect(run.item("launches", "8")?.status == .noImage)  // null without an error: no patch
            #expect(run.item("launches", "10")?.status == .downloaded)
            #expect(run.report.count(.failed) == 1)
            #expect(run.report("launches")?.warnings == [
                "page 1: partial data, launch 9: Patch store unavailable [INTERNAL_SERVER_ERROR] (path launches.launches.1.mission.missionPatch)",
            ])
        }

        @Test func aLaunchRejectedOnceIsRecordedAnewWhenItComesBackWhole() async throws {
            let broken = Locked(true)
            let feed = try LaunchesCrawlTests.scriptedFeed { _, base in
                let whole = [LaunchesCrawlTests.launch(86, base: base), LaunchesCrawlTests.launch(85, base: base)]
                guard broken.withLock({ $0 }) else { return FeedBodies.launchesPage(cursor: "c85", hasMore: false, launches: whole) }
                let errors = #"[{"message":"id resolver failed","path":["launches","launches",1,"id"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]"#
                return FeedBodies.launchesPage(cursor: "c85", hasMore: false, launches: [whole[0], "null"], errors: errors)
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let first = try await runCrawl([launchesSource(feed)], out: out.path)
            let placeholder = try #require(first.item("launches", "page1-index1"))
            #expect(placeholder.status == .rejected)
            #expect(placeholder.error == "launch is null: id resolver failed [INTERNAL_SERVER_ERROR] (path launches.launches.1.id)")

            broken.withLock { $0 = false }
            let second = try await runCrawl([launchesSource(feed)], out: out.path)
            #expect(second.items("launches").map(\.id).sorted() == ["85", "86"])
            #expect(second.item("launches", "85")?.status == .downloaded)
        }

        /// A feed of 8 launches whose `LaunchDetails` answers come from `details` (nil: the demo's).
        static func detailsFeed(
            log: RequestLog, _ details: @escaping @Sendable (ServerRequest) -> ServerResponse?
        ) throws -> DemoFeedServer {
            try LaunchDetailsCrawlTests.feed(launches: 8, log: log) { request in
                guard request.path == "/graphql",
                      String(decoding: request.body, as: UTF8.self).contains(#""operationName":"LaunchDetails""#) else { return nil }
                return details(request)
            }
        }

        @Test(arguments: [
            ("400 validation", ServerResponse.json(Array(#"{"errors":[{"message":"Cannot query field \"isBooked\" on type \"Launch\".","extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]}"#.utf8), status: 400)),
            ("200 data null", ServerResponse.json(Array(#"{"data":null,"errors":[{"message":"Cannot query field \"rocket\" on type \"Launch\"."}]}"#.utf8))),
            ("401", ServerResponse.json(Array(#"{"errors":[{"message":"You must be logged in"}]}"#.utf8), status: 401)),
            ("403 text", ServerResponse.text("Forbidden", status: 403)),
            ("UNAUTHENTICATED", ServerResponse.json(Array(#"{"data":{"launch":null},"errors":[{"message":"not logged in","path":["launch"],"extensions":{"code":"UNAUTHENTICATED"}}]}"#.utf8))),
        ])
        func aRefusedDetailsQueryIsNotSentAgain(_ kind: String, _ answer: ServerResponse) async throws {
            let log = RequestLog()
            let feed = try Self.detailsFeed(log: log) { _ in answer }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, pages: 2, details: true, pageSize: 4)], out: out.path)
            #expect(log.count(where: LaunchDetailsCrawlTests.isDetails) == 1, "\(kind)")
            #expect(run.items("launches").count == 8)
            #expect(run.items("launches").allSatisfy { $0.details?.error?.hasPrefix("not queried: the server refused the LaunchDetails query") == true })
            let report = try #require(run.report("launches"))
            #expect(report.missingDetails == 8)
            #expect(report.failure == nil)
            #expect(report.warnings.count == 1, "\(report.warnings)")
            #expect(report.warnings.first?.contains("8 launches without details") == true)
        }

        @Test func detailsAreRetriedOn5xxAndRetryAfter() async throws {
            let log = RequestLog()
            let seen = Locked(Set<String>())
            let feed = try Self.detailsFeed(log: log) { request in
                // Each launch's first query is refused with 503 (Retry-After: 0), the next answered.
                let body = String(decoding: request.body, as: UTF8.self)
                guard seen.withLock({ $0.insert(body).inserted }) else { return nil }
                return ServerResponse(status: 503, headers: [("Retry-After", "0"), ("Content-Type", "text/plain")], body: .bytes(Array("busy".utf8)))
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, pages: 1, details: true)], out: out.path)
            #expect(log.count(where: LaunchDetailsCrawlTests.isDetails) == 16)
            #expect(run.items("launches").allSatisfy { $0.details?.rocketName != nil && $0.details?.error == nil })
            #expect(run.report("launches")?.missingDetails == 0)
            // The query asks only for what feedcrawl keeps.
            #expect(log.all.filter(LaunchDetailsCrawlTests.isDetails).allSatisfy { !$0.body.contains("isBooked") && !$0.body.contains("mission") })
        }

        @Test func detailsStillMissingAfterRetriesAreCounted() async throws {
            let log = RequestLog()
            let feed = try Self.detailsFeed(log: log) { request in
                String(decoding: request.body, as: UTF8.self).contains(#""launchId":"3""#)
                    ? .text("upstream down", status: 502) : nil
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([Self.source(feed, pages: 1, details: true)], out: out.path) { $0.retries = 1 }
            #expect(log.count(where: LaunchDetailsCrawlTests.isDetails) == 9)  // 7 + launch 3 twice
            let report = try #require(run.report("launches"))
            #expect(report.missingDetails == 1)
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.hasPrefix("details: launch 3: ") == true)
            #expect(run.item("launches", "3")?.details?.error?.contains("502") == true)
        }
    }
}
