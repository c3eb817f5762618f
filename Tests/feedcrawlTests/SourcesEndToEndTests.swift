import DemoFeed
import Foundation
import Testing

/// Runs the binary (`BinaryRunner.run` waits without blocking a cooperative thread).
func runBinary(_ arguments: [String], environment: [String: String] = [:]) async throws -> BinaryRunner.Result {
    try await BinaryRunner.run(arguments, environment: environment)
}

@Suite("feedcrawl binary: sources, secrets, record and replay", .serialized)
struct SourcesEndToEndTests {
    /// Distinctive, and changed by percent-encoding.
    static let key = "Zq7-SEKRET/key+v1"

    /// Every form the key could take in text.
    static func leaks(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.contains("sekret") || text.contains(key)
            || text.contains("Zq7-SEKRET%2Fkey%2Bv1") || lower.contains("zq7-sekret%2fkey%2bv1")
    }

    /// Every file under `dir` (recursively), with its bytes.
    static func files(_ dir: String) -> [(String, Data)] {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: dir) else { return [] }
        return names.compactMap { name in
            let path = dir + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: path) else { return nil }
            return (path, data)
        }
    }

    /// The archive's items as JSON objects (`ArchiveExport`).
    static func items(_ out: String) async throws -> [[String: Any]] {
        try await Output.manifestItems(out)
    }

    @Test func theKeyIsInNoFileAndNoOutputAcrossRunsWithErrors() async throws {
        var options = DemoFeedOptions()
        options.hits = 25
        options.launches = 22
        options.rateLimit = 2
        options.rateWindowSeconds = 1
        options.retryAfterSeconds = 1
        options.override = { request in
            // Error pages that echo the request, key included, as careless servers do.
            guard request.path == "/api/" else { return nil }
            switch request.query["page"] {
            case "3": return .text("<html>Oops for \(request.target)</html>", contentType: "text/html")
            case "4": return .text("[ERROR 500] upstream failed for \(request.target)", status: 500)
            default: return nil
            }
        }
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        var badKey = DemoFeedOptions()
        badKey.apiKey = "not-the-key"
        let refusing = try DemoFeedServer(options: badKey)
        defer { refusing.stop() }

        let out = BinaryRunner.temporaryDirectory()
        let recording = BinaryRunner.temporaryDirectory()
        let replayOut = BinaryRunner.temporaryDirectory()
        defer { for dir in [out, recording, replayOut] { try? FileManager.default.removeItem(atPath: dir) } }
        let environment = ["PIXABAY_KEY": Self.key]
        let sources = ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL,
                       "--pages", "5", "--per-page", "5", "--retries", "1", "--details"]
        var results: [BinaryRunner.Result] = []

        let first = try await runBinary(sources + ["--out", out, "--record", recording], environment: environment)
        results.append(first)
        #expect(first.status == 1, "stderr: \(first.stderr)")  // two pages could not be read
        #expect(first.stderr.contains("page 3"))
        #expect(first.stderr.contains("text/html"))
        #expect(first.stderr.contains("page 4"))
        #expect(feed.stats().rateLimited == 0)

        let refused = try await runBinary(
            ["--pixabay-url", refusing.pixabayURL, "--out", out, "--refresh"], environment: environment)
        results.append(refused)
        #expect(refused.status == 3, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("Invalid API key"))
        #expect(refusing.stats().api == 1)  // not retried

        // A source whose key comes from another variable names that variable (issue 35).
        let config = out + "-flowers.json"
        defer { try? FileManager.default.removeItem(atPath: config) }
        try Data(#"{"sources": [{"type": "pixabay", "name": "flowers", "url": "\#(refusing.pixabayURL)", "keyEnv": "FLOWERS_KEY"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let named = try await runBinary(["--config", config, "--out", out, "--refresh"], environment: ["FLOWERS_KEY": Self.key])
        results.append(named)
        #expect(named.status == 3 && named.stderr.contains("check FLOWERS_KEY") && !named.stderr.contains("PIXABAY_KEY"),
                "stderr: \(named.stderr)")

        let apiBefore = feed.stats().api
        let replayed = try await runBinary(sources + ["--out", replayOut, "--replay", recording], environment: [:])
        results.append(replayed)
        #expect(replayed.status == 1, "stderr: \(replayed.stderr)")
        #expect(feed.stats().api == apiBefore)
        #expect(try await Self.items(replayOut).count == 15 + 22)

        for result in results {
            #expect(!Self.leaks(result.stdout))
            #expect(!Self.leaks(result.stderr), "stderr: \(result.stderr)")
        }
        var scanned = 0
        for dir in [out, recording, replayOut] {
            for (path, data) in Self.files(dir) {
                scanned += 1
                #expect(!Self.leaks(String(decoding: data, as: UTF8.self)), "\(path)")
            }
        }
        #expect(scanned > 40)  // manifest, pages, recordings and images were all looked at
        // The echoing error pages did carry the key: it was masked, not absent by luck.
        let masked = Self.files(recording).filter { String(decoding: $0.1, as: UTF8.self).contains("***") }
        #expect(masked.count >= 2)
        #expect(first.stderr.contains("***"))
    }

    @Test func arraySourceAndPatchSizeFromTheCommandLine() async throws {
        var options = DemoFeedOptions()
        options.launches = 20
        options.override = { request in
            if request.path.hasPrefix("/beer-img/") {
                // A whole PNG, made distinct by the path after its end (bytes after an image are allowed).
                let png = SlowFeed.image
                return ServerResponse(status: 200, headers: [("Content-Type", "image/png")],
                                      body: .bytes(png + Array(request.path.utf8)))
            }
            guard request.path == "/beers" else { return nil }
            let base = "http://" + (request.header("host") ?? "")
            let page = Int(request.query["page"] ?? "") ?? 0
            let beers = page == 1 ? (1...5).map { #"{"sku":"b\#($0)","name":"Beer \#($0)","img":"\#(base)/beer-img/\#($0).png"}"# } : []
            return .json(Array("[\(beers.joined(separator: ","))]".utf8))
        }
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await runBinary([
            "--array-url", feed.baseURL + "/beers", "--array-id-field", "sku", "--array-image-field", "img",
            "--array-name", "beers", "--array-per-page", "5",
            "--launches-url", feed.launchesURL, "--patch-size", "large", "--pages", "1", "--out", out,
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let items = try await Self.items(out)
        let beers = items.filter { $0["source"] as? String == "beers" }
        #expect(beers.count == 5)
        #expect(Set(beers.compactMap { $0["id"] as? String }) == Set((1...5).map { "b\($0)" }))
        #expect(beers.allSatisfy { $0["status"] as? String == "downloaded" })
        // The array source's one variant is `image`.
        for beer in beers {
            let images = beer["images"] as? [[String: Any]] ?? []
            #expect(images.map { $0["variant"] as? String } == ["image"])
            #expect((images.first?["url"] as? String)?.hasSuffix("/beer-img/\((beer["id"] as? String ?? "").dropFirst()).png") == true)
        }
        // --patch-size large = --launch-images large: the large patch only, as the `large` variant.
        let launches = items.filter { $0["source"] as? String == "launches" }
        #expect(launches.count == 20)
        let patches = launches.flatMap { $0["images"] as? [[String: Any]] ?? [] }
        #expect(patches.count > 10)
        #expect(patches.allSatisfy { $0["variant"] as? String == "large" && ($0["url"] as? String)?.hasSuffix("-large.png") == true })
        #expect(launches.allSatisfy { ($0["images"] as? [Any])?.count ?? 0 <= 1 })
    }

    @Test func newOptionsAreCheckedAndDocumented() async throws {
        let help = try await runBinary(["--help"])
        for flag in ["--details", "--patch-size", "--pixabay-images", "--launch-images", "--array-url", "--array-id-field", "--array-image-field",
                     "--array-name", "--record", "--replay", "--refresh", "--page-ttl", "--pixabay-query"] {
            #expect(help.stdout.contains(flag), "\(flag)")
        }
        let cases: [([String], String)] = [
            (["--patch-size", "huge"], "--patch-size"),
            (["--replay", "/tmp"], "--replay needs the sources"),
            (["--array-id-field", "sku"], "--array-url"),
            (["--array-url", "http://127.0.0.1:9/x", "--array-name", "../x"], "--array-name"),
            (["--launches-url", "http://127.0.0.1:9/g", "--record", "/tmp/a", "--replay", "/tmp/b"], "cannot be combined"),
            (["--page-ttl", "soon"], "--page-ttl"),
        ]
        for (arguments, message) in cases {
            let result = try await runBinary(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
