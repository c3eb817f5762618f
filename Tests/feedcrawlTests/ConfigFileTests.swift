import DemoFeed
import Foundation
import Testing

extension BinaryTests {
    /// feedcrawl.json, FEEDCRAWL_* and flags, through the binary.
    @Suite("feedcrawl configuration")
    struct ConfigFileTests {
        static func write(_ text: String, to path: String) throws {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }

        @Test func fileSourcesWithAKeyFromANamedVariable() throws {
            var options = DemoFeedOptions.small()
            options.apiKey = "file-secret-123"
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            let out = BinaryRunner.temporaryDirectory()
            // Found in OUT without --config.
            try Self.write("""
                {"pages": 1, "perPage": 5, "quiet": true,
                 "sources": [{"type": "pixabay", "name": "flowers", "url": "\(feed.pixabayURL)", "keyEnv": "MY_PIXABAY", "pages": 2},
                             {"type": "launches", "url": "\(feed.launchesURL)"}]}
                """, to: out + "/feedcrawl.json")
            let result = try BinaryRunner.run(["--out", out, "--json"], environment: ["MY_PIXABAY": "file-secret-123"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.isEmpty)   // quiet from the file
            let summary = try Output.jsonLine(result.stdout)
            let sources = try #require(summary["sources"] as? [[String: Any]])
            #expect(sources.map { $0["name"] as? String } == ["flowers", "launches"])
            #expect(sources.map { $0["pages"] as? Int } == [2, 1])   // per-source pages win over the file's default
            #expect(sources.map { $0["items"] as? Int } == [10, 10])

            let printed = try BinaryRunner.run(["config", "--print", "--out", out], environment: ["MY_PIXABAY": "file-secret-123"])
            #expect(printed.status == 0)
            #expect(!printed.stdout.contains("file-secret-123"))
            let view = try Output.jsonLine(printed.stdout)
            #expect(view["configFile"] as? String == out + "/feedcrawl.json")
            let first = try #require((view["sources"] as? [[String: Any]])?.first)
            #expect(first["key"] as? String == "***")
            #expect(first["keyEnv"] as? String == "MY_PIXABAY")

            let unset = try BinaryRunner.run(["config", "--print", "--out", out])
            #expect(unset.status == 2)
            #expect(unset.stderr.contains("MY_PIXABAY"))
            #expect(((try Output.jsonLine(unset.stdout))["sources"] as? [[String: Any]])?.first?["key"] as? String == "(not set)")
        }

        @Test func flagsBeatEnvironmentBeatFileBeatDefaults() throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write(#"{"pages": 1, "retries": 7, "concurrency": 3, "logFormat": "json"}"#, to: config)
            let result = try BinaryRunner.run(
                ["config", "--print", "--config", config, "--pages", "3"],
                environment: ["FEEDCRAWL_PAGES": "2", "FEEDCRAWL_LOG_FORMAT": "text", "FEEDCRAWL_OUT": dir + "/o"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let view = try Output.jsonLine(result.stdout)
            #expect(view["pages"] as? Int == 3)            // flag over environment over file
            #expect(view["logFormat"] as? String == "text") // environment over file
            #expect(view["retries"] as? Int == 7)           // file over default
            #expect(view["perHost"] as? Int == 8)           // default
            #expect(view["out"] as? String == dir + "/o")
            #expect(view["demo"] as? Bool == true)
        }

        @Test func badFileIsTwoNamingFileKeyAndExpectation() throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/feedcrawl.json"
            let cases: [(String, String)] = [
                (#"{"pages": "five"}"#, "pages: expected a whole number"),
                (#"{"sources": [{"type": "pixabay", "url": "https://x.example/", "key": "abc"}]}"#, "sources[0].key: secrets may not be written"),
                (#"{"sources": [{"type": "launches"}]}"#, "sources[0].url: missing"),
                (#"{"colour": "blue"}"#, "colour: unknown key"),
                (#"{"pages": 1"#, "not valid JSON"),
            ]
            for (text, expected) in cases {
                try Self.write(text, to: config)
                let result = try BinaryRunner.run(["--config", config, "--out", dir + "/o"])
                #expect(result.status == 2, "\(text)")
                #expect(result.stderr.contains("config file \(config): \(expected)"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/o"))
            }
            let missing = try BinaryRunner.run(["--config", dir + "/nope.json"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("nope.json"))
            let env = try BinaryRunner.run(["config", "--print"], environment: ["FEEDCRAWL_PAGES": "many"])
            #expect(env.status == 2)
            #expect(env.stderr.contains("FEEDCRAWL_PAGES"))
        }

        @Test func everySubcommandHasHelpAndThereIsAVersion() throws {
            for arguments in [["--help"], ["help"], ["config", "--help"], ["help", "config"]] {
                let result = try BinaryRunner.run(arguments)
                #expect(result.status == 0)
                #expect(result.stdout.contains("USAGE: feedcrawl"))
                #expect(result.stdout.contains("EXAMPLES:"))
            }
            let version = try BinaryRunner.run(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout.hasPrefix("feedcrawl "))
        }
    }
}
