import DemoFeed
import FeedCrawlKit
import Foundation
import Testing

/// Several image variants per item, through the binary against a `DemoFeedServer` in this
/// process: every variant stored, each file the server's bytes, each URL fetched once, a warm
/// rerun fetching nothing; `--details` adding the large patch; the CSV listing one row per image.
@Suite("feedcrawl image variants")
struct MultiVariantEndToEndTests {
    static let variants = ["--pixabay-images", "preview,webformat", "--launch-images", "small,large"]

    /// 30 hits on 2 pages of 15; 30 launches (every 7th shares patch 7, about 1 in 8 has none).
    static func feed() throws -> ImageRequestLog {
        try ImageRequestLog(options: .small(hits: 30, launches: 30))
    }

    /// Checks that every item of `manifest` holds exactly `pixabay` / `launches` variants, each
    /// downloaded into a file; returns the distinct image URLs.
    static func checkAllStored(
        _ manifest: Manifest, pixabay: [String], launches: [String], status: ItemStatus = .downloaded,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Set<String> {
        #expect(manifest.items.filter { $0.source == "pixabay" }.count == 30, sourceLocation: sourceLocation)
        #expect(manifest.items.filter { $0.source == "launches" }.count == 30, sourceLocation: sourceLocation)
        for item in manifest.items {
            let variants = item.images.map(\.variant)
            if item.source == "pixabay" {
                #expect(variants == pixabay, "\(item.id): \(variants)", sourceLocation: sourceLocation)
            } else {
                #expect(variants == launches || variants.isEmpty, "\(item.id): \(variants)", sourceLocation: sourceLocation)
            }
            #expect(item.status == (item.images.isEmpty ? .noImage : status), "\(item.id)", sourceLocation: sourceLocation)
            for image in item.images {
                #expect(image.status == status && image.file != nil && image.sha256 != nil,
                        "\(item.id) \(image.variant): \(image.status) \(image.error ?? "")", sourceLocation: sourceLocation)
            }
        }
        #expect(manifest.items.contains { $0.source == "launches" && !$0.images.isEmpty }, sourceLocation: sourceLocation)
        return Set(manifest.images.map(\.image.url))
    }

    @Test func everyVariantIsTheServersBytesFetchedOnceAndAWarmRerunFetchesNone() async throws {
        try await BinaryTestGate.run {
            let feed = try Self.feed()
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let arguments = feed.arguments(out: out.path) + Self.variants
            let first = try await BinaryProcess.run(arguments, environment: feed.environment)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let export = try await ArchiveExport.read(out.path)
            #expect(OutputCheck.layoutProblems(export.text).isEmpty, "\(OutputCheck.layoutProblems(export.text).prefix(3))")

            let manifest = export.manifest
            #expect(manifest.version == 2)
            let urls = Self.checkAllStored(manifest, pixabay: ["preview", "webformat"], launches: ["small", "large"])
            // Each distinct URL was requested once, also the patch the Starlink launches share.
            let requests = feed.requests
            #expect(Set(requests.keys) == Set(urls.map(feed.path)))
            #expect(requests.values.allSatisfy { $0 == 1 }, "\(requests.filter { $0.value != 1 })")
            #expect(feed.server.stats().images == urls.count)
            let shared = manifest.images.filter { $0.image.url.hasSuffix("/img/patch/7-large.png") }
            #expect(shared.count >= 4)
            #expect(Set(shared.map(\.image.file)).count == 1)
            #expect(manifest.images.count > urls.count)
            #expect(out.cacheFiles() == manifest.files)
            #expect(manifest.files.count == urls.count)

            // Every file holds what the server sends for its URL (fetched here, outside the binary).
            let hashes = try await ServerImages.sha256(of: urls)
            #expect(hashes.count == urls.count)
            let problems = OutputCheck.problems(manifest, out: out.path, expected: hashes)
            #expect(problems.isEmpty, "\(problems.prefix(5))")
            for (_, image) in manifest.images {
                #expect(image.sha256 == hashes[image.url], "\(image.url)")
            }

            // A warm rerun finds every variant fresh and requests no image.
            feed.reset()
            let warm = try await BinaryProcess.run(arguments, environment: feed.environment)
            #expect(warm.status == 0, "stderr: \(warm.stderr)")
            #expect(feed.server.stats().images == 0)
            #expect(feed.requests.isEmpty)
            let rerun = try await out.manifest()
            #expect(Self.checkAllStored(rerun, pixabay: ["preview", "webformat"], launches: ["small", "large"], status: .fresh) == urls)
            #expect(rerun.run?.images == ["fresh": manifest.images.count])
            let verify = try await BinaryProcess.run(["manifest", "--verify", "--out", out.path])
            #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
            #expect(verify.stdout.contains("Verified \(urls.count) files"))
            #expect(verify.stdout.contains("no problems"))
            #expect(OutputCheck.leftovers(out: out.path).isEmpty)
        }
    }

    @Test func detailsAddTheLargePatchAndTheRocket() async throws {
        try await BinaryTestGate.run {
            let feed = try Self.feed()
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let result = try await BinaryProcess.run(
                feed.arguments(out: out.path) + ["--details"], environment: feed.environment)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let export = try await ArchiveExport.read(out.path)
            let manifest = export.manifest
            let urls = Self.checkAllStored(manifest, pixabay: ["preview"], launches: ["small", "large"])
            let launches = manifest.items.filter { $0.source == "launches" }
            for launch in launches {
                #expect(launch.details?.rocketName?.isEmpty == false, "\(launch.id)")
                #expect(launch.details?.site?.isEmpty == false, "\(launch.id)")
                if let large = launch.image("large") {
                    #expect(large.url.hasSuffix("-large.png"))
                    #expect(large.width == 256 && large.height == 256)
                    #expect(launch.image("small")?.width == 64)
                }
            }
            // The shared patch (both sizes) was fetched once.
            let requests = feed.requests
            #expect(Set(requests.keys) == Set(urls.map(feed.path)))
            #expect(requests.values.allSatisfy { $0 == 1 }, "\(requests.filter { $0.value != 1 })")
            #expect(feed.server.stats().images == urls.count)
            #expect(requests["/img/patch/7-large.png"] == 1)
            #expect(launches.filter { $0.image("large")?.url.hasSuffix("/img/patch/7-large.png") == true }.count >= 4)
            let hashes = try await ServerImages.sha256(of: urls)
            #expect(OutputCheck.problems(manifest, out: out.path, expected: hashes).isEmpty)
            // The old `details.largePatch*` fields are gone from the export and from every file
            // of the archive (its groups hold the item lines).
            #expect(!export.text.contains("largePatch"))
            #expect(export.text.contains("\"details\":{\"rocketName\":"))
            let archived = try FileManager.default.subpathsOfDirectory(atPath: out.path + "/archive").compactMap {
                FileManager.default.contents(atPath: out.path + "/archive/" + $0).map { String(decoding: $0, as: UTF8.self) }
            }
            #expect(archived.contains { $0.contains("\"details\":{\"rocketName\":") })
            #expect(!archived.contains { $0.contains("largePatch") })
        }
    }

    @Test func csvListsOneRowPerImage() async throws {
        try await BinaryTestGate.run {
            let feed = try Self.feed()
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let crawl = try await BinaryProcess.run(feed.arguments(out: out.path) + Self.variants, environment: feed.environment)
            #expect(crawl.status == 0, "stderr: \(crawl.stderr)")
            let manifest = try await out.manifest()
            let csv = try await BinaryProcess.run(
                ["manifest", "--out", out.path, "--source", "pixabay", "--source", "launches", "--format", "csv"])
            #expect(csv.status == 0, "stderr: \(csv.stderr)")
            let rows = CSVRows.parse(csv.stdout)
            let header = "source,id,page,status,title,variant,imageStatus,file,bytes,width,height,sha256,error,url"
            #expect(rows.first == header.split(separator: ",").map(String.init))
            let body = Array(rows.dropFirst())
            let noImage = manifest.items.filter(\.images.isEmpty)
            #expect(!noImage.isEmpty)
            #expect(body.count == manifest.images.count + noImage.count)
            #expect(body.allSatisfy { $0.count == 14 })
            var byImage: [String: [String]] = [:]
            for row in body where row.count == 14 { byImage["\(row[0])/\(row[1])/\(row[5])"] = row }
            for (item, image) in manifest.images {
                let row = try #require(byImage["\(item.source)/\(item.id)/\(image.variant)"], "\(item.id) \(image.variant)")
                #expect(row[2] == String(item.page) && row[3] == item.status.rawValue && row[4] == item.title)
                #expect(row[6] == image.status.rawValue && row[7] == image.file && row[8] == image.bytes.map(String.init))
                #expect(row[9] == image.width.map(String.init) && row[10] == image.height.map(String.init))
                #expect(row[11] == image.sha256 && row[12] == "" && row[13] == image.url)
            }
            for item in noImage {
                let row = try #require(body.first { $0.count == 14 && $0[0] == item.source && $0[1] == item.id })
                #expect(row[3] == "no-image" && row[5...].allSatisfy(\.isEmpty))
            }
            // Titles with commas (Pixabay tags) stay one field.
            #expect(body.contains { $0[0] == "pixabay" && $0[4].contains(", ") })
        }
    }
}
