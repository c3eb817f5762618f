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

        @Test func fileSourcesWithAKeyFromANamedVariable() async throws {
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
            let result = try await BinaryRunner.run(["--out", out, "--json"], environment: ["MY_PIXABAY": "file-secret-123"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.isEmpty)   // quiet from the file
            let summary = try Output.jsonLine(result.stdout)
            let sources = try #require(summary["sources"] as? [[String: Any]])
            #expect(sources.map { $0["name"] as? String } == ["flowers", "launches"])
            #expect(sources.map { $0["pages"] as? Int } == [2, 1])   // per-source pages win over the file's default
            #expect(sources.map { $0["items"] as? Int } == [10, 10])

            let printed = try await BinaryRunner.run(["config", "--print", "--out", out], environment: ["MY_PIXABAY": "file-secret-123"])
            #expect(printed.status == 0)
            #expect(!printed.stdout.contains("file-secret-123"))
            let view = try Output.jsonLine(printed.stdout)
            let first = try #require((view["sources"] as? [[String: Any]])?.first)
            #expect(first["key"] == nil)
            #expect(first["keyEnv"] as? String == "MY_PIXABAY")
            let origins = try Output.jsonLine(
                try await BinaryRunner.run(["config", "--origins", "--out", out], environment: ["MY_PIXABAY": "file-secret-123"]).stdout)
            #expect(origins["configFile"] as? String == out + "/feedcrawl.json")
            #expect(origins["demo"] as? Bool == false)
            #expect((origins["secrets"] as? [String: String])?["MY_PIXABAY"] == "set")

            let unset = try await BinaryRunner.run(["config", "--print", "--out", out])
            #expect(unset.status == 2)
            #expect(unset.stderr.contains("MY_PIXABAY"))
            let unsetOrigins = try await BinaryRunner.run(["config", "--origins", "--out", out])
            #expect(unsetOrigins.status == 2)
            #expect(((try Output.jsonLine(unsetOrigins.stdout))["secrets"] as? [String: String])?["MY_PIXABAY"] == "not set")
        }

        @Test func flagsBeatEnvironmentBeatFileBeatDefaults() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write(#"{"pages": 1, "retries": 7, "concurrency": 3, "logFormat": "json"}"#, to: config)
            let result = try await BinaryRunner.run(
                ["config", "--print", "--config", config, "--pages", "3"],
                environment: ["FEEDCRAWL_PAGES": "2", "FEEDCRAWL_LOG_FORMAT": "text", "FEEDCRAWL_OUT": dir + "/o"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let view = try Output.jsonLine(result.stdout)
            #expect(view["pages"] as? Int == 3)            // flag over environment over file
            #expect(view["logFormat"] as? String == "text") // environment over file
            #expect(view["retries"] as? Int == 7)           // file over default
            #expect(view["perHost"] as? Int == 8)           // default
            #expect(view["out"] as? String == dir + "/o")
            #expect(view["sources"] == nil)  // the demo feed
        }

        @Test func badFileIsTwoNamingFileKeyAndExpectation() async throws {
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
                let result = try await BinaryRunner.run(["--config", config, "--out", dir + "/o"])
                #expect(result.status == 2, "\(text)")
                #expect(result.stderr.contains("config file \(config): \(expected)"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/o"))
            }
            let missing = try await BinaryRunner.run(["--config", dir + "/nope.json"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("nope.json"))
            let env = try await BinaryRunner.run(["config", "--print"], environment: ["FEEDCRAWL_PAGES": "many"])
            #expect(env.status == 2)
            #expect(env.stderr.contains("FEEDCRAWL_PAGES"))
        }

        @Test func everySubcommandHasHelpAndThereIsAVersion() async throws {
            for arguments in [["--help"], ["help"], ["config", "--help"], ["help", "config"]] {
                let result = try await BinaryRunner.run(arguments)
                #expect(result.status == 0)
                #expect(result.stdout.contains("USAGE: feedcrawl"))
                #expect(result.stdout.contains("EXAMPLES:"))
            }
            let version = try await BinaryRunner.run(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout.hasPrefix("feedcrawl "))
        }

        /// Issue 19: a JSON error names the line and column and what was expected there.
        @Test func jsonErrorsGiveLineAndColumn() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            let cases: [(String, String)] = [
                ("{\n  \"pages\": 1\n  \"out\": \"x\"\n}", "line 3, column 3: expected ',' or '}', found '\"'"),
                (#"{"pages": 1"#, "line 1, column 12: expected ',' or '}', found the end of the file"),
                ("{\"pixabayImages\": [\"large\" \"webformat\"]}", "line 1, column 28: expected ',' or ']', found '\"'"),
                ("{\"pages\": tru}", "line 1, column 11: expected true, false or null"),
            ]
            for (text, expected) in cases {
                try Self.write(text, to: config)
                for arguments in [["--config", config, "--out", dir + "/o"], ["config", "--print", "--config", config]] {
                    let result = try await BinaryRunner.run(arguments)
                    #expect(result.status == 2)
                    #expect(result.stderr.contains("config file \(config): not valid JSON at \(expected)"), "\(result.stderr)")
                }
            }
        }

        /// The keys a file may hold, as the binary lists them after a misspelt key.
        static func validKeys() async throws -> [String] {
            let dir = BinaryRunner.temporaryDirectory()
            try Self.write(#"{"zzzzzzzz": 1}"#, to: dir + "/c.json")
            let result = try await BinaryRunner.run(["config", "--print", "--config", dir + "/c.json"])
            let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("valid keys: ") })
            let list = try #require(line.range(of: "valid keys: ")).upperBound
            return line[list...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }

        /// Issue 19: a misspelt top-level key gets the closest key and the list, as source keys do.
        @Test func misspeltKeysGetASuggestionAndTheValidKeys() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            let cases: [(String, String)] = [
                (#"{"pagse": 3}"#, #"pagse: unknown key; did you mean "pages"? valid keys: "#),
                (#"{"per-page": 3}"#, #"per-page: unknown key; did you mean "perPage"? valid keys: "#),
                (#"{"colour": "blue"}"#, "colour: unknown key; valid keys: "),
                (#"{"sources": [{"type": "pixabay", "url": "https://x.example/", "querry": "a"}]}"#,
                 #"sources[0].querry: unknown key for a pixabay source; did you mean "query"? valid keys: type, url, name"#),
            ]
            for (text, expected) in cases {
                try Self.write(text, to: config)
                let result = try await BinaryRunner.run(["--config", config, "--out", dir + "/o"])
                #expect(result.status == 2)
                #expect(result.stderr.contains("config file \(config): \(expected)"), "\(result.stderr)")
            }
            let keys = try await Self.validKeys()
            for key in ["pages", "perPage", "cacheMax", "deadline", "metricsFile", "refresh", "pixabayQuery",
                        "pixabayImages", "launchImages", "sources"] {
                #expect(keys.contains(key), "\(keys)")
            }
            // Options a file may not set are not offered.
            for key in ["help", "version", "config", "shard", "pixabayUrl"] { #expect(!keys.contains(key)) }
            #expect(keys == keys.sorted())
        }

        /// Issue 27, point 3: `config --print` is a configuration file: read back, it gives the
        /// same configuration and prints the same again, with every layer and every source type,
        /// and no secret in it.
        @Test func printIsAConfigurationFileThatPrintsTheSameAgain() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write("""
                {"pages": 1, "perPage": 5, "quiet": true, "ttl": "7d", "cacheMax": "1536K", "deadline": "90m",
                 "maxImageBytes": "1000", "logFormat": "json",
                 "sources": [{"type": "pixabay", "name": "flowers", "url": "http://127.0.0.1:9/api/", "keyEnv": "MY_KEY",
                              "pages": 2, "query": "red roses", "images": "large,preview",
                              "headers": {"X-Trace": "abc", "Authorization": {"env": "MY_TOKEN"}}},
                             {"type": "launches", "url": "http://127.0.0.1:9/graphql", "details": true, "pageSize": 50,
                              "pageTtl": "2h"},
                             {"type": "array", "url": "http://127.0.0.1:9/a", "idField": "uid", "perPage": 10}]}
                """, to: config)
            let secrets = ["MY_KEY": "key-9f8e7d6c", "MY_TOKEN": "Bearer tok-5a4b3c"]
            let first = try await BinaryRunner.run(
                ["config", "--print", "--config", config, "--retries", "5", "--no-quiet"],
                environment: secrets.merging(["FEEDCRAWL_PAGES": "3"]) { $1 })
            #expect(first.status == 0, "\(first.stderr)")
            #expect(!first.stdout.contains("key-9f8e7d6c") && !first.stdout.contains("tok-5a4b3c"))
            let printed = dir + "/printed.json"
            try Self.write(first.stdout, to: printed)
            let second = try await BinaryRunner.run(["config", "--print", "--config", printed], environment: secrets)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout == first.stdout, "first:\n\(first.stdout)\nsecond:\n\(second.stdout)")
            let view = try Output.jsonLine(first.stdout)
            #expect(view["pages"] as? Int == 3 && view["retries"] as? Int == 5 && view["quiet"] as? Bool == false)
            #expect(view["ttl"] as? String == "7d" && view["cacheMax"] as? String == "1536K")
            #expect(view["deadline"] as? String == "90m" && view["maxImageBytes"] as? String == "1000")
            let sources = try #require(view["sources"] as? [[String: Any]])
            #expect(sources.map { $0["type"] as? String } == ["pixabay", "launches", "array"])
            // Only the entry that set its own page TTL prints one (the others follow the top level).
            #expect(sources.map { $0["pageTtl"] as? String } == [nil, "2h", nil])
            #expect(sources.map { $0["pages"] as? Int } == [3, nil, nil])  // FEEDCRAWL_PAGES overrides its 2
            #expect(sources[0]["keyEnv"] as? String == "MY_KEY")
            #expect(sources[2]["idField"] as? String == "uid")
            // jq reads it as well.
            let jq = try await OptionDeclarationTests.run("/usr/bin/jq", ["-e", ".sources | length == 3", printed])
            #expect(jq.status == 0, "\(jq.stderr)")

            // The demo feed: no sources, and the same again.
            let demo = try await BinaryRunner.run(["config", "--print"])
            #expect(demo.status == 0 && !demo.stdout.contains("sources"), "\(demo.stdout)")
            try Self.write(demo.stdout, to: dir + "/demo.json")
            #expect(try await BinaryRunner.run(["config", "--print", "--config", dir + "/demo.json"]).stdout == demo.stdout)
            // A --header's value is a secret: left out, and named on stderr.
            let header = try await BinaryRunner.run(
                ["config", "--print", "--launches-url", "http://127.0.0.1:9/g", "--header", "Authorization: Bearer tok-5a4b3c"])
            #expect(header.status == 0, "\(header.stderr)")
            #expect(!(header.stdout + header.stderr).contains("tok-5a4b3c"))
            #expect(header.stderr.contains("--header values are secrets and are not printed (Authorization)"), "\(header.stderr)")
        }

        /// Issue 27, point 3: durations and sizes are printed as the help writes their defaults
        /// (`24h`, `2G`, not `1d`, `2 GiB`).
        @Test func defaultsArePrintedAsTheHelpWritesThem() async throws {
            let printed = try Output.jsonLine(try await BinaryRunner.run(["config", "--print"]).stdout)
            let options = try await OptionDeclarationTests.declared()
            let json = try await BinaryRunner.run(["help", "--options-json"])
            let placeholders = Dictionary(
                uniqueKeysWithValues: (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? [])
                    .compactMap { o in (o["name"] as? String).map { ($0, o["placeholder"] as? String ?? "") } })
            var compared = 0
            for option in options where ["DURATION", "SIZE", "N"].contains(placeholders[option.name] ?? "") {
                guard let text = option.defaultText, text.first?.isNumber == true, !text.contains(" ") else { continue }
                let key = option.name.dropFirst(2).split(separator: "-").enumerated()
                    .map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }.joined()
                let value = printed[key].map { "\($0)" }
                #expect(value == text, "\(option.name): help says \(text), config --print \(value ?? "nothing")")
                compared += 1
            }
            #expect(compared >= 8)
        }

        /// Issue 27, point 3: one spelling per key wherever it appears: `pageTtl` at the top level
        /// and in a source; the other spelling is refused with the right one.
        @Test func oneSpellingOfPageTtlEverywhere() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write(#"{"pageTtl": "1h", "sources": [{"type": "array", "url": "http://h.example/a", "pageTtl": "2h"}]}"#, to: config)
            let good = try await BinaryRunner.run(["config", "--print", "--config", config])
            #expect(good.status == 0, "\(good.stderr)")
            for text in [#"{"pageTTL": "1h"}"#, #"{"sources": [{"type": "array", "url": "http://h.example/a", "pageTTL": "2h"}]}"#] {
                try Self.write(text, to: config)
                let bad = try await BinaryRunner.run(["config", "--print", "--config", config])
                #expect(bad.status == 2)
                #expect(bad.stderr.contains("pageTTL") && bad.stderr.contains(#"did you mean "pageTtl""#), "\(bad.stderr)")
            }
        }

        /// Issue 19: one rule for lists, at the top level and in a source: an array of names or
        /// one comma-separated string.
        @Test func listsAreArraysOrCommaSeparatedStringsAtBothLevels() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write("""
                {"pixabayImages": ["large", "webformat"], "launchImages": "small,large",
                 "sources": [{"type": "pixabay", "url": "https://x.example/api/", "keyEnv": "K", "images": "webformat,large"},
                             {"type": "launches", "url": "https://y.example/g", "images": ["large"]}]}
                """, to: config)
            let result = try await BinaryRunner.run(["config", "--print", "--config", config], environment: ["K": "a-long-key-123"])
            #expect(result.status == 0, "\(result.stderr)")
            let view = try Output.jsonLine(result.stdout)
            #expect(view["pixabayImages"] as? [String] == ["large", "webformat"])
            #expect(view["launchImages"] as? [String] == ["small", "large"])
            let origins = try await BinaryRunner.run(["config", "--origins", "--config", config], environment: ["K": "a-long-key-123"])
            let from = try #require(try Output.jsonLine(origins.stdout)["from"] as? [String: String])
            #expect(from["pixabayImages"] == "file")
            #expect(from["launchImages"] == "file")
            let sources = try #require(view["sources"] as? [[String: Any]])
            #expect(sources.map { $0["images"] as? [String] } == [["webformat", "large"], ["large"]])

            for (text, expected) in [
                (#"{"pixabayImages": [3]}"#, "pixabayImages: expected a list of names (an array, or one comma-separated string), not an array"),
                (#"{"launchImages": ["huge"]}"#, "launchImages: unknown image variant 'huge'"),
                (#"{"sources": [{"type": "launches", "url": "https://y.example/g", "images": 3}]}"#,
                 "sources[0].images: expected a list of variant names (an array, or one comma-separated string), not the number 3"),
            ] {
                try Self.write(text, to: config)
                let bad = try await BinaryRunner.run(["config", "--print", "--config", config])
                #expect(bad.status == 2)
                #expect(bad.stderr.contains("config file \(config): \(expected)"), "\(bad.stderr)")
            }
        }

        /// Issue 19: --print shows every option the parser accepts in a file, and where its value
        /// came from.
        /// Issue 27, point 3: every on/off option has `--no-…`; the environment's `0` turns off what
        /// a file turned on, and `config --print` says it came from the environment.
        @Test func everyBooleanCanBeTurnedOffAboveTheFile() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write(#"{"quiet": true, "refresh": true, "details": true}"#, to: config)
            let environment = try await BinaryRunner.run(
                ["config", "--print", "--config", config], environment: ["FEEDCRAWL_QUIET": "0"])
            #expect(environment.status == 0, "\(environment.stderr)")
            let view = try Output.jsonLine(environment.stdout)
            #expect(view["quiet"] as? Bool == false)
            let origins = try await BinaryRunner.run(
                ["config", "--origins", "--config", config], environment: ["FEEDCRAWL_QUIET": "0"])
            #expect((try Output.jsonLine(origins.stdout)["from"] as? [String: String])?["quiet"] == "environment")
            let flags = try await BinaryRunner.run(["config", "--print", "--config", config, "--no-refresh", "--no-details"])
            #expect(flags.status == 0, "\(flags.stderr)")
            let flagView = try Output.jsonLine(flags.stdout)
            #expect(flagView["refresh"] as? Bool == false)
            #expect(flagView["details"] as? Bool == false)
            #expect(flagView["quiet"] as? Bool == true)
            let flagOrigins = try await BinaryRunner.run(["config", "--origins", "--config", config, "--no-refresh", "--no-details"])
            #expect((try Output.jsonLine(flagOrigins.stdout)["from"] as? [String: String])?["refresh"] == "flag")
            // The file is below the environment: FEEDCRAWL_QUIET=1 wins over a file's false.
            try Self.write(#"{"quiet": false}"#, to: config)
            let above = try await BinaryRunner.run(
                ["config", "--print", "--config", config], environment: ["FEEDCRAWL_QUIET": "1"])
            #expect(try Output.jsonLine(above.stdout)["quiet"] as? Bool == true)
            let noVersion = try await BinaryRunner.run(["--no-version"])
            #expect(noVersion.status == 2)
            #expect(noVersion.stderr.contains("unknown option '--no-version'"), "\(noVersion.stderr)")
        }

        /// Issue 27, point 3: strict JSON, as jq reads it: a trailing comma and a key given twice
        /// are refused with line and column; a duration needs its unit.
        @Test func strictJSONAndDurationsWithUnits() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let cases: [(String, String)] = [
                ("{\"pages\": 2,\n \"ttl\": \"1h\",\n}", "line 3, column 1: expected a key in double quotes, found '}'"),
                ("{\"pages\": 2, \"pages\": 3}", "line 1, column 14: the key \"pages\" is given twice in this object"),
                ("{\"sources\": [{\"type\": \"array\", \"url\": \"http://h/a\", \"url\": \"http://h/b\"}]}",
                 "the key \"url\" is given twice"),
                ("{\"pages\": [1, 2,]}", "expected a value"),
                ("{\"ttl\": 3600}", "ttl: a duration needs its unit: write \"3600s\""),
            ]
            for (index, (text, message)) in cases.enumerated() {
                let config = dir + "/c\(index).json"
                try Self.write(text, to: config)
                let result = try await BinaryRunner.run(["config", "--print", "--config", config])
                #expect(result.status == 2, "\(text)")
                #expect(result.stderr.contains(message), "\(text): \(result.stderr)")
            }
        }

        /// Issue 35, point 2: `config --print` writes each setting once, under the key an edit
        /// would change (no `noProgress` beside `progress`, no `patchSize` beside `launchImages`,
        /// no per-source `pages` copied from the top level); a file giving an alias and its
        /// option both is refused, naming both.
        @Test func printWritesEachSettingOnceSoThatAnEditTakesEffect() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write(#"""
                {"noProgress": true, "patchSize": "small", "pages": 2,
                 "sources": [{"type": "launches", "url": "http://127.0.0.1:9/graphql"}]}
                """#, to: config)
            let first = try await BinaryRunner.run(["config", "--print", "--config", config])
            #expect(first.status == 0, "\(first.stderr)")
            let view = try Output.jsonLine(first.stdout)
            #expect(view["noProgress"] == nil && view["patchSize"] == nil && view["noLogFile"] == nil, "\(first.stdout)")
            #expect(view["progress"] as? String == "never")
            #expect(view["launchImages"] as? [String] == ["small"])
            let printedSources = try #require(view["sources"] as? [[String: Any]])
            #expect(printedSources.first?["pages"] == nil && printedSources.first?["images"] == nil, "\(printedSources)")

            // The printed file, edited where an operator would: the edits take effect.
            var object = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
            object["launchImages"] = ["large"]
            object["pages"] = 4
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir + "/edited.json"))
            let again = try Output.jsonLine(try await BinaryRunner.run(["config", "--print", "--config", dir + "/edited.json"]).stdout)
            #expect(again["launchImages"] as? [String] == ["large"])
            #expect(again["pages"] as? Int == 4)
            #expect((again["sources"] as? [[String: Any]])?.first?["pages"] == nil)

            // Both spellings of one setting in a file: refused, naming both.
            for (text, alias, option) in [
                (#"{"launchImages": ["large"], "patchSize": "small"}"#, "patchSize", "launchImages"),
                (#"{"progress": "always", "noProgress": true}"#, "noProgress", "progress"),
                (#"{"logFile": "/tmp/x.log", "noLogFile": true}"#, "noLogFile", "logFile"),
            ] {
                try Self.write(text, to: config)
                let refused = try await BinaryRunner.run(["config", "--print", "--config", config])
                #expect(refused.status == 2, "\(text)")
                #expect(refused.stderr.contains(alias) && refused.stderr.contains("sets the same value as \"\(option)\""), "\(refused.stderr)")
            }
        }

        /// Issue 35: `--log-file -` is stderr (no file named `-`), and `--no-log-file` turns off a
        /// log file the environment (or a configuration) names, for a manual run.
        @Test func logFileDashAndNoLogFileLogToStderr() async throws {
            let feed = try DemoFeedServer(options: .small())
            defer { feed.stop() }
            let dir = BinaryRunner.temporaryDirectory()
            let arguments = ["--pixabay-url", feed.pixabayURL, "--pages", "1", "--per-page", "5", "--progress", "never"]
            let dash = try await BinaryRunner.run(
                ["--out", dir + "/a", "--log-file", "-"] + arguments, environment: ["PIXABAY_KEY": "k"])
            #expect(dash.status == 0, "\(dash.stderr)")
            #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))
            #expect(dash.stderr.contains("page 1"), "\(dash.stderr)")
            let off = try await BinaryRunner.run(
                ["--out", dir + "/b", "--no-log-file"] + arguments,
                environment: ["PIXABAY_KEY": "k", "FEEDCRAWL_LOG_FILE": dir + "/run.log"])
            #expect(off.status == 0, "\(off.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/run.log"))
            #expect(off.stderr.contains("page 1"), "\(off.stderr)")
        }

        /// Issue 35: a relative path in a configuration file is relative to the file's folder,
        /// wherever the command runs (cron runs it in the user's home); `config --print` writes
        /// paths absolute, so the printed file means the same wherever it is saved.
        @Test func relativePathsInAFileAreRelativeToItsFolder() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            try FileManager.default.createDirectory(atPath: dir + "/etc", withIntermediateDirectories: true)
            try Self.write(#"{"out": "mirror", "logFile": "./logs/run.log", "metricsFile": "../m/feedcrawl.prom"}"#, to: dir + "/etc/c.json")
            let printed = try await BinaryRunner.run(["config", "--print", "--config", dir + "/etc/c.json"])
            #expect(printed.status == 0, "\(printed.stderr)")
            let view = try Output.jsonLine(printed.stdout)
            #expect(view["out"] as? String == dir + "/etc/mirror")
            #expect(view["logFile"] as? String == dir + "/etc/logs/run.log")
            #expect(view["metricsFile"] as? String == dir + "/etc/../m/feedcrawl.prom")
            // No file: the default OUT, printed absolute (the test runs in some working folder).
            let defaults = try Output.jsonLine(try await BinaryRunner.run(["config", "--print"]).stdout)
            #expect((defaults["out"] as? String)?.hasPrefix("/") == true && (defaults["out"] as? String)?.hasSuffix("/output") == true)
            // The printed file, saved elsewhere, says the same.
            try Self.write(printed.stdout, to: dir + "/elsewhere.json")
            let again = try await BinaryRunner.run(["config", "--print", "--config", dir + "/elsewhere.json"])
            #expect(again.stdout == printed.stdout)
            // A crawl with the file writes where it says, not in the working folder.
            let feed = try DemoFeedServer(options: .small())
            defer { feed.stop() }
            let crawl = try await BinaryRunner.run(
                ["--config", dir + "/etc/c.json", "--pixabay-url", feed.pixabayURL, "--pages", "1", "--per-page", "5", "--quiet"],
                environment: ["PIXABAY_KEY": "k"])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/etc/mirror/manifest.json"))
            #expect(FileManager.default.fileExists(atPath: dir + "/etc/logs/run.log"))
            #expect(FileManager.default.fileExists(atPath: dir + "/m/feedcrawl.prom"))
        }

        @Test func printShowsEveryFileOptionAndWhereItCameFrom() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write("""
                {"cacheMax": "1G", "deadline": "10m", "metricsFile": "\(dir)/m.prom", "refresh": true,
                 "pixabayQuery": "cats", "retries": 7, "pages": 1, "noProgress": true}
                """, to: config)
            let result = try await BinaryRunner.run(
                ["config", "--print", "--config", config, "--retries", "5", "-q"], environment: ["FEEDCRAWL_PAGES": "2"])
            #expect(result.status == 0, "\(result.stderr)")
            let view = try Output.jsonLine(result.stdout)
            let origins = try await BinaryRunner.run(
                ["config", "--origins", "--config", config, "--retries", "5", "-q"], environment: ["FEEDCRAWL_PAGES": "2"])
            #expect(origins.status == 0, "\(origins.stderr)")
            let from = try #require(try Output.jsonLine(origins.stdout)["from"] as? [String: String])
            let keys = try await Self.validKeys().filter { $0 != "sources" }
            #expect(keys.count > 30)
            for key in keys {
                #expect(view[key] as? String != "(not shown)", "\(key)")
                #expect(["default", "file", "environment", "flag"].contains(from[key] ?? ""), "\(key)")
            }
            // Every key with a value is printed; a key without one is left out, never null.
            #expect(Set(view.keys).isSubset(of: Set(keys)))
            #expect(!view.values.contains { $0 is NSNull })
            #expect(Set(from.keys) == Set(keys))
            #expect(view["cacheMax"] as? String != nil)
            #expect(view["deadline"] as? String == "10m")
            #expect(view["metricsFile"] as? String == dir + "/m.prom")
            #expect(view["refresh"] as? Bool == true)
            #expect(view["pixabayQuery"] as? String == "cats")
            #expect(view["progress"] as? String == "never")
            #expect(view["pages"] as? Int == 2)
            #expect(view["retries"] as? Int == 5)
            #expect(view["quiet"] as? Bool == true)
            #expect(from["cacheMax"] == "file")
            #expect(from["deadline"] == "file")
            #expect(from["progress"] == "file")        // set by noProgress
            #expect(from["pages"] == "environment")
            #expect(from["retries"] == "flag")
            #expect(from["quiet"] == "flag")
            #expect(from["perHost"] == "default")
            #expect(view["perHost"] as? Int == 8)
            #expect(view["cacert"] == nil)

            // Without a file, from the command line.
            let flags = try await BinaryRunner.run(["config", "--print", "--deadline=90s", "--cache-max", "5G", "--refresh",
                                              "--out", dir + "/o"])
            #expect(flags.status == 0, "\(flags.stderr)")
            let flagView = try Output.jsonLine(flags.stdout)
            #expect(flagView["deadline"] as? String == "90s")
            #expect(flagView["refresh"] as? Bool == true)
            #expect(flagView["cacheMax"] as? String == "5G")
            let flagOrigins = try await BinaryRunner.run(["config", "--origins", "--deadline=90s", "--cache-max", "5G", "--refresh",
                                                    "--out", dir + "/o"])
            let flagFrom = try Output.jsonLine(flagOrigins.stdout)["from"] as? [String: String]
            #expect(flagFrom?["cacheMax"] == "flag")
            #expect(flagFrom?["deadline"] == "flag")
        }

        /// Issue 19: a short key no longer turns the host into `pi***abay.com`, and is still
        /// never printed where it stands as a value.
        @Test func aShortKeyDoesNotMangleTheURLs() async throws {
            let dir = BinaryRunner.temporaryDirectory()
            let config = dir + "/c.json"
            try Self.write("""
                {"sources": [{"type": "pixabay", "url": "https://pixabay.com/api/", "keyEnv": "K", "query": "xab cats"}]}
                """, to: config)
            let result = try await BinaryRunner.run(["config", "--print", "--config", config], environment: ["K": "xab"])
            #expect(result.status == 0, "\(result.stderr)")
            let source = try #require((try Output.jsonLine(result.stdout))["sources"] as? [[String: Any]]).first
            #expect(source?["url"] as? String == "https://pixabay.com/api/")
            #expect(source?["query"] as? String == "*** cats")
            #expect(source?["key"] == nil)
        }
    }
}
