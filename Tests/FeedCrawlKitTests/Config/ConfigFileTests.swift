import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Configuration file")
struct ConfigFileTests {
    static func parse(_ text: String) throws(ConfigError) -> ConfigFile {
        try ConfigFile.parse(Array(text.utf8), path: "/etc/f.json")
    }

    static func problem(_ text: String) -> ConfigError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsOptionsAndSources() throws {
        let file = try Self.parse("""
            {"pages": 3, "maxImageBytes": "5M", "quiet": true,
             "sources": [{"type": "pixabay", "url": "https://pixabay.com/api/", "query": "red roses", "perPage": 50,
                          "keyEnv": "KEY_A", "imageType": "photo", "pageConcurrency": 2, "name": "roses"},
                         {"type": "launches", "url": "https://x.example/graphql", "pages": 9}]}
            """)
        #expect(file.options.map(\.key) == ["maxImageBytes", "pages", "quiet"])
        #expect(file.options.map(\.optionName) == ["--max-image-bytes", "--pages", "--quiet"])
        #expect(file.options[1].value == .number(3))
        let sources = try #require(file.sources)
        #expect(sources.map(\.name) == ["roses", "launches"])
        #expect(sources[0].secretVariables == ["KEY_A"])

        let pixabay = try sources[0].configuration(
            pages: 5, perPage: 100, overridePages: false, overridePerPage: false,
            environment: ["KEY_A": "secret"])
        guard let config = (pixabay).feed as? PixabaySourceConfiguration else { Issue.record("not pixabay"); return }
        #expect(config.key == "secret")
        #expect(config.query == "red roses")
        #expect(config.perPage == 50)
        #expect(config.pages == 5)           // the run's pages: the source names none
        #expect(config.imageType == "photo")
        #expect(config.pageConcurrency == 2)
        #expect(config.name == "roses")

        let launches = try sources[1].configuration(
            pages: 5, perPage: 100, overridePages: false, overridePerPage: false, environment: [:])
        guard let own = (launches).feed as? LaunchesSourceConfiguration else { Issue.record("not launches"); return }
        #expect(own.pages == 9)
        let overridden = try sources[1].configuration(
            pages: 2, perPage: 100, overridePages: true, overridePerPage: false, environment: [:])
        guard let flag = (overridden).feed as? LaunchesSourceConfiguration else { Issue.record("not launches"); return }
        #expect(flag.pages == 2)             // --pages on the command line wins
    }

    @Test func missingKeyVariableNamesTheSourceAndVariable() throws {
        let file = try Self.parse(#"{"sources": [{"type": "pixabay", "url": "https://pixabay.com/api/"}]}"#)
        let source = try #require(file.sources?.first)
        #expect(throws: ConfigError.self) {
            try source.configuration(pages: 1, perPage: 10, overridePages: false, overridePerPage: false,
                                     environment: ["PIXABAY_KEY": ""])
        }
        do {
            _ = try source.configuration(pages: 1, perPage: 10, overridePages: false, overridePerPage: false,
                                         environment: [:])
        } catch {
            #expect(error.description == "config file /etc/f.json: sources[0].keyEnv: the environment variable PIXABAY_KEY holds no API key; set it (export PIXABAY_KEY=...)")
        }
    }

    @Test func launchesAndArraySourceOptions() throws {
        let file = try Self.parse("""
            {"sources": [{"type": "launches", "url": "https://x.example/graphql", "patchSize": "large", "details": true},
                         {"type": "array", "url": "https://y.example/beers", "idField": "beer.id", "imageField": "img",
                          "titleField": "name", "perPage": 80, "pageTtl": "2h", "name": "beers"}]}
            """)
        let sources = try #require(file.sources)
        let launches = try sources[0].configuration(
            pages: 4, perPage: 10, overridePages: false, overridePerPage: false, environment: [:])
        guard let l = (launches).feed as? LaunchesSourceConfiguration else {
            Issue.record("expected launches, got \(launches)")
            return
        }
        #expect(l.variants == [.large] && l.details && l.pages == 4)  // patchSize: a synonym of images
        #expect(l.effectiveVariants == [.large])
        let array = try sources[1].configuration(
            pages: 4, perPage: 10, overridePages: false, overridePerPage: false, environment: [:])
        guard let a = (array).feed as? ArraySourceConfiguration else {
            Issue.record("expected array, got \(array)")
            return
        }
        #expect(a.idField == "beer.id" && a.imageField == "img" && a.titleField == "name")
        #expect(a.perPage == 80 && a.pageTTL == 7200 && a.name == "beers")
        #expect(Self.problem(#"{"sources": [{"type": "launches", "url": "https://a.example/", "patchSize": "huge"}]}"#)?.key == "sources[0].patchSize")
        // patchSize and images set one value: both given is refused (issue 35, point 2).
        let both = Self.problem(#"{"sources": [{"type": "launches", "url": "https://a.example/", "patchSize": "small", "images": ["large"]}]}"#)
        #expect(both?.key == "sources[0].patchSize" && both?.problem.contains("\"images\"") == true, "\(String(describing: both))")
        #expect(Self.problem(#"{"sources": [{"type": "array", "url": "https://a.example/", "pageTtl": "soon"}]}"#)?.key == "sources[0].pageTtl")
    }

    @Test func imagesNameEachSourcesVariants() throws {
        let file = try Self.parse("""
            {"sources": [{"type": "pixabay", "url": "https://pixabay.com/api/", "images": ["webformat", "preview", "webformat"]},
                         {"type": "pixabay", "url": "https://pixabay.com/api/", "name": "big", "images": "Large, preview"},
                         {"type": "launches", "url": "https://x.example/graphql", "images": ["small", "large"]},
                         {"type": "launches", "url": "https://x.example/graphql", "name": "patches", "images": ["small"], "details": true},
                         {"type": "launches", "url": "https://x.example/graphql", "name": "big-patches", "patchSize": "LARGE"},
                         {"type": "array", "url": "https://y.example/beers", "images": ["image"]},
                         {"type": "pixabay", "url": "https://pixabay.com/api/", "name": "plain"}]}
            """)
        let sources = try #require(file.sources)
        #expect(sources[0].entry.images == ["webformat", "preview", "webformat"])  // as given; checked
        #expect(sources[1].entry.images == ["Large", " preview"])
        func configuration(_ index: Int) throws -> SourceConfiguration {
            try sources[index].configuration(pages: 1, perPage: 10, overridePages: false, overridePerPage: false,
                                             environment: ["PIXABAY_KEY": "k"])
        }
        guard let first = (try configuration(0)).feed as? PixabaySourceConfiguration, let big = (try configuration(1)).feed as? PixabaySourceConfiguration,
              let both = (try configuration(2)).feed as? LaunchesSourceConfiguration, let patches = (try configuration(3)).feed as? LaunchesSourceConfiguration,
              let bigPatches = (try configuration(4)).feed as? LaunchesSourceConfiguration, (try configuration(5)).feed is ArraySourceConfiguration,
              let plain = (try configuration(6)).feed as? PixabaySourceConfiguration else {
            Issue.record("unexpected source kinds")
            return
        }
        #expect(first.variants == [.webformat, .preview])  // order kept, repeats dropped
        #expect(big.variants == [.large, .preview])        // a comma-separated string, any case
        #expect(both.variants == [.small, .large])
        #expect(patches.variants == [.small])
        #expect(patches.effectiveVariants == [.small, .large])  // details adds the large patch
        #expect(bigPatches.variants == [.large])
        #expect(plain.variants == [.preview])               // the default
    }

    @Test(arguments: [
        (#"{"type": "pixabay", "url": "https://a.example/", "images": ["preview", "huge"]}"#,
         "unknown image variant 'huge' (valid: preview, webformat, large)"),
        (#"{"type": "pixabay", "url": "https://a.example/", "images": "small"}"#,
         "unknown image variant 'small' (valid: preview, webformat, large)"),
        (#"{"type": "launches", "url": "https://a.example/", "images": ["preview"]}"#,
         "unknown image variant 'preview' (valid: small, large)"),
        (#"{"type": "array", "url": "https://a.example/", "images": ["large"]}"#, "unknown image variant 'large' (valid: image)"),
        (#"{"type": "pixabay", "url": "https://a.example/", "images": []}"#, "no image variant named (valid: preview, webformat, large)"),
        (#"{"type": "pixabay", "url": "https://a.example/", "images": " , "}"#, "no image variant named"),
        (#"{"type": "pixabay", "url": "https://a.example/", "images": 2}"#, "expected a list of variant names (an array, or one comma-separated string), not the number 2"),
        (#"{"type": "pixabay", "url": "https://a.example/", "images": ["preview", 1]}"#, "expected a list of variant names"),
    ])
    func unknownVariantsNameTheFileTheKeyAndTheValidOnes(source: String, problem: String) {
        let error = Self.problem(#"{"sources": [{"type": "launches", "url": "https://ok.example/"}, "# + source + "]}")
        #expect(error?.path == "/etc/f.json")
        #expect(error?.key == "sources[1].images", "\(String(describing: error))")
        #expect(error?.problem.hasPrefix(problem) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("config file /etc/f.json: sources[1].images: ") == true)
    }

    @Test func patchSizeIsOnlyForLaunchesAndOnlySmallOrLarge() {
        #expect(Self.problem(#"{"sources": [{"type": "launches", "url": "https://a.example/", "patchSize": "huge"}]}"#)?.problem
            == "expected \"small\" or \"large\", not the string \"huge\"")
        #expect(Self.problem(#"{"sources": [{"type": "pixabay", "url": "https://a.example/", "patchSize": "large"}]}"#)?.key
            == "sources[0].patchSize")
    }

    @Test func errorsNameTheKeyAndWhatWasExpected() {
        let cases: [(String, String, String)] = [
            ("[]", "", "expected a JSON object at the top level, not an array"),
            ("{", "", "not valid JSON"),
            (#"{"sources": {}}"#, "sources", "expected an array of sources, not an object"),
            (#"{"sources": [3]}"#, "sources[0]", "expected an object"),
            (#"{"sources": [{"url": "https://a.example/"}]}"#, "sources[0].type", "missing"),
            (#"{"sources": [{"type": "rss", "url": "https://a.example/"}]}"#, "sources[0].type", "expected one of \"pixabay\", \"launches\", \"array\", not the string \"rss\""),
            (#"{"sources": [{"type": "launches", "url": "ftp://a.example/"}]}"#, "sources[0].url", "expected an http:// or https:// URL"),
            (#"{"sources": [{"type": "launches", "url": "https://a.example/", "query": "x"}]}"#, "sources[0].query", "unknown key for a launches source"),
            (#"{"sources": [{"type": "pixabay", "url": "https://a.example/", "apiKey": "x"}]}"#, "sources[0].apiKey", "secrets may not be written in the file"),
            (#"{"sources": [{"type": "pixabay", "url": "https://a.example/", "keyEnv": "abc-123!"}]}"#, "sources[0].keyEnv", "expected the NAME of an environment variable"),
            (#"{"sources": [{"type": "pixabay", "url": "https://a.example/", "perPage": 2.5}]}"#, "sources[0].perPage", "expected a whole number from 3 to 200, not the number 2.5"),
            (#"{"sources": [{"type": "launches", "url": "https://a.example/", "name": "a b"}]}"#, "sources[0].name", "expected up to 64 letters"),
            (#"{"sources": [{"type": "launches", "url": "https://a.example/"}, {"type": "launches", "url": "https://b.example/"}]}"#, "sources[1].name", "\"launches\" is used by an earlier source"),
            (#"{"per-page": 3}"#, "per-page", "unknown key"),
        ]
        for (text, key, problem) in cases {
            let error = Self.problem(text)
            #expect(error?.path == "/etc/f.json", "\(text)")
            #expect(error?.key == key, "\(text): \(String(describing: error))")
            #expect(error?.problem.hasPrefix(problem) == true, "\(text): \(String(describing: error))")
        }
    }

    @Test func optionNamesAndKeysConvert() {
        #expect(ConfigFile.optionName(forKey: "perPage") == "--per-page")
        #expect(ConfigFile.optionName(forKey: "out") == "--out")
        #expect(ConfigFile.key(forOptionName: "--max-image-bytes") == "maxImageBytes")
        #expect(ConfigValue.number(3).argumentText == "3")
        #expect(ConfigValue.number(0.5).argumentText == "0.5")
        #expect(ConfigValue.bool(true).argumentText == nil)
    }

    @Test func loadNamesAMissingFile() {
        #expect(throws: ConfigError.self) { try ConfigFile.load(path: "/nonexistent/feedcrawl.json") }
    }
}
