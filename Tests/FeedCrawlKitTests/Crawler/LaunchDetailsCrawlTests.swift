import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

extension CrawlerTests {
    @Suite("Launch details and shared patches")
    struct LaunchDetailsCrawlTests {
        static func feed(launches: Int = 30, log: RequestLog,
                         _ answer: @escaping @Sendable (ServerRequest) -> ServerResponse? = { _ in nil }) throws -> DemoFeedServer {
            var options = DemoFeedOptions.observing(log, answer)
            options.launches = launches
            return try DemoFeedServer(options: options)
        }

        static func isDetails(_ entry: RequestLog.Entry) -> Bool {
            entry.path == "/graphql" && entry.body.contains(#""operationName":"LaunchDetails""#)
        }

        static func isList(_ entry: RequestLog.Entry) -> Bool {
            entry.path == "/graphql" && entry.body.contains(#""operationName":"LaunchList""#)
        }

        @Test func detailsAddRocketSiteAndTheLargeVariant() async throws {
            let log = RequestLog()
            let feed = try Self.feed(log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 5, details: true)], out: out.path)
            let items = run.items("launches")
            #expect(items.count == 30)
            #expect(log.count(where: Self.isDetails) == 30)
            #expect(run.report("launches")?.warnings == [])
            // Both sizes are listed by the page query, under their names as aliases.
            let lists = log.all.filter(Self.isList)
            #expect(!lists.isEmpty)
            #expect(lists.allSatisfy {
                $0.body.contains("small: missionPatch(size: SMALL)") && $0.body.contains("large: missionPatch(size: LARGE)")
            })
            #expect(run.manifest.run?.options["launches.images"] == "small,large")
            for item in items {
                let details = try #require(item.details, "item \(item.id)")
                #expect(["Falcon 1", "Falcon 9", "Falcon Heavy"].contains(details.rocketName ?? ""))
                #expect(details.rocketType != nil)
                #expect(details.site == item.author)
                #expect(details.error == nil)
                guard !item.images.isEmpty else {
                    #expect(item.status == .noImage)  // no patch at all
                    continue
                }
                #expect(item.images.map(\.variant) == ["small", "large"])
                let small = try #require(item.image("small"))
                let large = try #require(item.image("large"))
                #expect(large.url == small.url.replacing("-small.png", with: "-large.png"))
                #expect(small.status == .downloaded && large.status == .downloaded)
                let file = try #require(large.file)
                #expect(fileSHA256(out.path, file) == large.sha256)
                #expect(file != small.file)
                #expect(large.bytes ?? 0 > small.bytes ?? 0)
            }
            // Launches 7, 14, 21 and 28 share one patch: each size is fetched once.
            #expect(log.count(path: "/img/patch/7-large.png") == 1)
            #expect(log.count(path: "/img/patch/7-small.png") == 1)
            let shared = items.filter { $0.image("small")?.url.hasSuffix("/img/patch/7-small.png") == true }
            #expect(shared.count == 4)
            #expect(Set(shared.map { $0.image("small")?.file }).count == 1)
            #expect(Set(shared.map { $0.image("large")?.file }).count == 1)
            #expect(shared.allSatisfy { $0.status == .downloaded })
            #expect(try await verifyCache(out.path).isClean)

            // A rerun within the TTL requests no patch again, large ones included.
            let before = log.all.count
            let rerun = try await runCrawl([launchesSource(feed, pages: 5, details: true)], out: out.path)
            let images = log.all.dropFirst(before).filter { $0.path.hasPrefix("/img/") }
            #expect(images.isEmpty)
            #expect(rerun.items("launches").flatMap(\.images).allSatisfy { $0.status == .fresh })
            #expect(rerun.items("launches").allSatisfy { $0.details?.rocketName != nil })
        }

        @Test func withoutDetailsNoLargePatchIsFetched() async throws {
            let log = RequestLog()
            let feed = try Self.feed(launches: 10, log: log)
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 5)], out: out.path)
            #expect(run.items("launches").count == 10)
            #expect(log.count(where: Self.isDetails) == 0)
            #expect(log.count { $0.path.hasSuffix("-large.png") } == 0)
            #expect(run.items("launches").allSatisfy { $0.details == nil })
            #expect(run.items("launches").allSatisfy { $0.images.allSatisfy { $0.variant == "small" } })
        }

        @Test func aFailedDetailsQueryIsRecordedOnItsItem() async throws {
            let log = RequestLog()
            let feed = try Self.feed(launches: 8, log: log) { request in
                guard request.path == "/graphql", request.body.count > 0,
                      String(decoding: request.body, as: UTF8.self).contains(#""launchId":"5""#) else { return nil }
                return .json(Array(#"{"errors":[{"message":"Cannot return null for non-nullable field Launch.isBooked.","path":["launch","isBooked"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":{"launch":null}}"#.utf8))
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let run = try await runCrawl([launchesSource(feed, pages: 1, details: true)], out: out.path)
            let failed = try #require(run.item("launches", "5")?.details)
            #expect(failed.error?.contains("Cannot return null for non-nullable field Launch.isBooked.") == true)
            #expect(failed.rocketName == nil && failed.rocketType == nil && failed.site == nil)
            // The images were listed with the page: they do not depend on the details.
            let item = try #require(run.item("launches", "5"))
            #expect(item.status == .downloaded || item.status == .noImage)
            #expect(item.images.isEmpty || item.images.map(\.variant) == ["small", "large"])
            #expect(run.item("launches", "6")?.details?.rocketName != nil)
            #expect(run.items("launches").count == 8)
            let report = try #require(run.report("launches"))
            #expect(report.failure == nil)
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.contains("launch 5") == true)
        }
    }
}
