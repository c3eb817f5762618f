import Foundation
import Testing

@Suite("feedcrawl binary", .serialized)
struct EndToEndTests {
    @Test func helpListsOptionsAndExitStatuses() async throws {
        let result = try await BinaryRunner.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--pixabay-url"))
        #expect(result.stdout.contains("EXIT STATUS"))
        #expect(result.stderr.isEmpty)
    }

    @Test func unknownOptionIsAUsageError() async throws {
        let result = try await BinaryRunner.run(["--bogus"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown option '--bogus'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func badNumberIsAUsageError() async throws {
        let result = try await BinaryRunner.run(["--per-page", "500"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--per-page"))
    }

    @Test func pixabayURLWithoutKeyFailsBeforeAnyRequest() async throws {
        let out = BinaryRunner.temporaryDirectory()
        // Port 9 (discard) on loopback: nothing is requested, so nothing can answer.
        let result = try await BinaryRunner.run(["--pixabay-url", "http://127.0.0.1:9/api/", "--out", out])
        #expect(result.status == 2)
        #expect(result.stderr.contains("PIXABAY_KEY"))
        #expect(!FileManager.default.fileExists(atPath: out + "/manifest.json"))
    }

    @Test func demoCrawlFillsCacheAndManifest() async throws {
        let out = BinaryRunner.temporaryDirectory()
        let result = try await BinaryRunner.run(["--pages", "2", "--per-page", "20", "--out", out])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("demo feed"))
        #expect(result.stdout.isEmpty)
        // OUT/manifest.json is the archive's small root (format 3), naming what holds the items.
        let root = try Output.json(out + "/manifest.json")
        #expect(root["format"] as? String == "feedcrawl-archive")
        #expect(root["version"] as? Int == 3)
        #expect(root["items"] == nil)
        #expect(root["groups"] is String)
        // Read whole, it is one version-2 document.
        let manifest = try await ArchiveExport.read(out).json()
        #expect(manifest["version"] as? Int == 2)
        let items = try #require(manifest["items"] as? [[String: Any]])
        let pixabay = items.filter { $0["source"] as? String == "pixabay" }
        let launches = items.filter { $0["source"] as? String == "launches" }
        #expect(pixabay.count == 40)
        #expect(launches.count == 40)
        // The default variants: Pixabay's preview, the launches' small patch.
        for item in items {
            let images = item["images"] as? [[String: Any]] ?? []
            let variants = images.compactMap { $0["variant"] as? String }
            #expect(variants == (item["source"] as? String == "pixabay" ? ["preview"] : images.isEmpty ? [] : ["small"]))
            for image in images {
                #expect(image["status"] as? String == "downloaded")
                let file = try #require(image["file"] as? String)
                #expect(FileManager.default.fileExists(atPath: out + "/" + file))
                #expect(file.hasPrefix("cache/"))
            }
            let status = item["status"] as? String
            #expect(status == (images.isEmpty ? "no-image" : "downloaded"), "\(item["id"] ?? "")")
        }
        #expect(pixabay.allSatisfy { ($0["images"] as? [Any])?.count == 1 })

        // A rerun within the TTL requests no image again.
        let rerun = try await BinaryRunner.run(["--pages", "2", "--per-page", "20", "--out", out])
        #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
        let rerunItems = try await Output.manifestItems(out)
        let statuses = rerunItems.compactMap { $0["status"] as? String }
        #expect(!statuses.contains("downloaded"))
        #expect(statuses.contains("fresh"))
        let imageStatuses = rerunItems.flatMap { $0["images"] as? [[String: Any]] ?? [] }.compactMap { $0["status"] as? String }
        #expect(imageStatuses.count > 70 && imageStatuses.allSatisfy { $0 == "fresh" })
    }
}
