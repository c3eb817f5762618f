import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// `ShardMerge` in process: shard parts of real crawls joined into OUT's archive, with the
/// end-of-run maintenance of a whole run (`--cache-max`).
extension CrawlerTests {
    @Suite("Shard merge", .serialized)
    struct ShardMergeTests {
        @Test func twoShardsMergeIntoOneManifestAndEvictionIsNotCountedAsOrphans() async throws {
            let out = TestDirectory()
            // An archive from before the shards: five old items with their files.
            let seeded = try CrawlMaintenanceTests.seed(out, ages: [3, 9, 1, 7, 5])
            let size = try #require(seeded[0].soleImage?.bytes)
            let feed = try DemoFeedServer()
            defer { feed.stop() }
            for index in 0..<2 {
                var configuration = CrawlFixture.configuration(feed, out: out.path, pixabayPages: 2, perPage: 10)
                configuration.shard = Shard(index: index, count: 2)
                let (report, _) = try await CrawlFixture.run(configuration)
                #expect(report.count(.downloaded) == 10, "shard \(index)")
                #expect(report.evictedFiles == 0, "a shard evicts nothing")
            }
            #expect(CrawlFixture.cacheFiles(out.path).count == seeded.count + 20)
            // Nothing merged yet: OUT's manifest is the earlier release's, as the shards found it
            // (the merge converts it).
            let merged = try ManifestStore.load(outDirectory: out.path)
            #expect(merged.items.count == 5, "nothing merged yet")
            var partFiles: [Int64] = []
            for index in 0..<2 {
                partFiles += try await archivedManifest(out.path, shard: Shard(index: index, count: 2)).items
                    .compactMap { $0.soleImage?.bytes }
            }
            #expect(partFiles.count == 20)
            // Room for the shards' 20 files and two old ones, besides what OUT holds besides
            // images (half an image more for what the merge's own writes change).
            var merge = ShardMerge(outDirectory: out.path)
            let others = try await CrawlMaintenanceTests.footprint(out).total
            merge.cacheMaxBytes = partFiles.reduce(0, +) + 2 * size + others + size / 2
            let report = try await merge.run()
            #expect(report.complete)
            #expect(report.problems.isEmpty)
            let manifest = try await archivedManifest(out.path)
            #expect(manifest.items.filter { $0.source == "pixabay" }.count == 20)
            // Oldest first: the items seen 9, 7 and 5 days ago go with their files.
            #expect(Set(manifest.items.filter { $0.source == "old" }.map(\.id)) == ["0", "2"])
            #expect(report.evictedFiles == 3)
            #expect(report.orphansRemoved == 0)
            #expect(manifest.run?.evicted == 3)
            #expect(try await verifyCache(out.path).isClean)
        }
    }
}
