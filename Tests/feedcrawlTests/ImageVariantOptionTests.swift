import DemoFeed
import Foundation
import Testing

extension BinaryTests {
    /// Choosing image variants: `--pixabay-images`, `--launch-images`, a config file's
    /// `"images"`; unknown names are usage errors that name the valid ones.
    @Suite("feedcrawl image variant options")
    struct ImageVariantOptionTests {
        static let pixabayVariants = "(valid: preview, webformat, large)"
        static let launchVariants = "(valid: small, large)"

        @Test func anUnknownVariantOnTheCommandLineIsTwoNamingTheValidOnes() async throws {
            let out = BinaryRunner.temporaryDirectory() + "/never"
            let cases: [([String], String)] = [
                (["--pixabay-images", "preview,huge"], "--pixabay-images: unknown image variant 'huge' \(Self.pixabayVariants)"),
                (["--pixabay-images", "small"], "--pixabay-images: unknown image variant 'small' \(Self.pixabayVariants)"),
                (["--pixabay-images", ""], "--pixabay-images: no image variant named \(Self.pixabayVariants)"),
                (["--launch-images", "small,huge"], "--launch-images: unknown image variant 'huge' \(Self.launchVariants)"),
                (["--launch-images", "webformat"], "--launch-images: unknown image variant 'webformat' \(Self.launchVariants)"),
                (["--launch-images", ","], "--launch-images: no image variant named \(Self.launchVariants)"),
            ]
            for (arguments, message) in cases {
                // Demo mode, and with the sources named: the check comes before anything runs.
                for sources in [[], ["--launches-url", "http://127.0.0.1:9/graphql"]] {
                    let result = try await BinaryRunner.run(arguments + sources + ["--out", out])
                    #expect(result.status == 2, "\(arguments)")
                    #expect(result.stderr.hasPrefix("feedcrawl: error: \(message)"), "\(arguments): \(result.stderr)")
                    #expect(result.stdout.isEmpty)
                }
                let json = try await BinaryRunner.run(arguments + ["--json", "--out", out])
                #expect(json.status == 2)
                #expect((try? Output.jsonLine(json.stdout))?["exitStatus"] as? Int == 2, "\(json.stdout)")
            }
            #expect(!FileManager.default.fileExists(atPath: out))
        }

        @Test func anUnknownVariantInTheConfigFileIsTwoNamingTheValidOnes() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let config = dir + "/feedcrawl.json"
            let cases: [(String, String)] = [
                (#"{"sources": [{"type": "pixabay", "url": "http://127.0.0.1:9/api/", "keyEnv": "K", "images": ["preview", "huge"]}]}"#,
                 "sources[0].images: unknown image variant 'huge' \(Self.pixabayVariants)"),
                (#"{"sources": [{"type": "launches", "url": "http://127.0.0.1:9/g"}, {"type": "launches", "name": "l2", "url": "http://127.0.0.1:9/g", "images": ["huge"]}]}"#,
                 "sources[1].images: unknown image variant 'huge' \(Self.launchVariants)"),
                (#"{"sources": [{"type": "launches", "url": "http://127.0.0.1:9/g", "images": []}]}"#,
                 "sources[0].images: no image variant named \(Self.launchVariants)"),
                (#"{"sources": [{"type": "array", "url": "http://127.0.0.1:9/a", "idField": "id", "imageField": "img", "images": ["large"]}]}"#,
                 "sources[0].images: unknown image variant 'large' (valid: image)"),
            ]
            for (text, message) in cases {
                try text.write(toFile: config, atomically: true, encoding: .utf8)
                for arguments in [["--config", config, "--out", dir + "/o"], ["config", "--print", "--config", config]] {
                    let result = try await BinaryRunner.run(arguments, environment: ["K": "key"])
                    #expect(result.status == 2, "\(text)")
                    #expect(result.stderr.contains("config file \(config): \(message)"), "\(text): \(result.stderr)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/o"))
        }

        @Test func theConfigFilesVariantsAreTheOnesStored() async throws {
            try await BinaryTestGate.run {
                let feed = try DemoFeedServer(options: .small(hits: 10, launches: 10))
                defer { feed.stop() }
                let out = OutputFolder()
                defer { out.remove() }
                try """
                    {"pages": 1, "perPage": 10,
                     "sources": [{"type": "pixabay", "url": "\(feed.pixabayURL)", "keyEnv": "K", "images": ["large", "webformat"]},
                                 {"type": "launches", "url": "\(feed.launchesURL)", "images": ["large"]}]}
                    """.write(toFile: out.path + "/feedcrawl.json", atomically: true, encoding: .utf8)
                let printed = try await runBinary(["config", "--print", "--out", out.path], environment: ["K": feed.apiKey])
                let view = try Output.jsonLine(printed.stdout)
                let sources = try #require(view["sources"] as? [[String: Any]])
                #expect(sources.map { $0["images"] as? [String] } == [["large", "webformat"], ["large"]])

                let result = try await runBinary(["--out", out.path], environment: ["K": feed.apiKey])
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let manifest = try await out.manifest()
                #expect(manifest.items.count == 20)
                for item in manifest.items {
                    let want = item.source == "pixabay" ? ["large", "webformat"] : item.images.isEmpty ? [] : ["large"]
                    #expect(item.images.map(\.variant) == want, "\(item.id)")
                    #expect(item.images.allSatisfy { $0.status == .downloaded })
                }
                let pixabay = manifest.items.filter { $0.source == "pixabay" }
                #expect(pixabay.allSatisfy { $0.image("large")?.url.contains("/img/large/") == true })
                #expect(pixabay.allSatisfy { $0.image("webformat")?.url.contains("/img/web/") == true })
                #expect(manifest.run?.options["pixabay.images"] == "large,webformat")
                #expect(manifest.run?.options["launches.images"] == "large")
            }
        }
    }
}
