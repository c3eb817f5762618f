import DemoFeed
import Foundation
import Testing

/// Issue 26: `--header` and a source's `headers`, the run's account of what was lost
/// (failed pages, missing details) in the summary line and `--json`, through the binary.
@Suite("feedcrawl binary: request headers and what a run lost", .serialized)
struct HeaderEndToEndTests {
    static let token = "tok-Qv8-HEADERSECRET"

    static func leaks(_ text: String) -> Bool {
        text.contains(token) || text.lowercased().contains("headersecret")
    }

    /// A demo feed of 8 launches that answers `/graphql` only with `Authorization: Bearer <token>`
    /// (401 otherwise); the LaunchList after page 1 fails (500), and launch 6's details answer
    /// 502 quoting the request's Authorization, as a careless server might.
    static func guardedFeed() throws -> DemoFeedServer {
        var options = DemoFeedOptions()
        options.launches = 8
        options.override = { request in
            guard request.path == "/graphql" else { return nil }
            let authorization = request.header("authorization") ?? ""
            guard authorization == "Bearer \(token)" else {
                return .json(Array(#"{"errors":[{"message":"You must be logged in","extensions":{"code":"UNAUTHENTICATED"}}]}"#.utf8), status: 401)
            }
            let body = String(decoding: request.body, as: UTF8.self)
            if body.contains(#""operationName":"LaunchList""#), body.contains(#""cursor""#) {
                return .text("list failed", status: 500)
            }
            if body.contains(#""launchId":"6""#) { return .text("bad gateway for \(authorization)", status: 502) }
            return nil
        }
        return try DemoFeedServer(options: options)
    }

    @Test func headersAreSentAndNeverWrittenAndTheRunSaysWhatWasLost() async throws {
        let feed = try Self.guardedFeed()
        defer { feed.stop() }
        let out = BinaryRunner.temporaryDirectory()
        let recording = BinaryRunner.temporaryDirectory()
        defer { for dir in [out, recording] { try? FileManager.default.removeItem(atPath: dir) } }
        let metrics = out + "/metrics.prom"
        let log = out + "/run.log"
        let arguments = ["--launches-url", feed.launchesURL, "--launches-page-size", "4", "--pages", "2", "--details",
                         "--retries", "0", "--out", out, "--record", recording, "--json", "--metrics-file", metrics,
                         "--log-file", log, "--verbose"]
        let run = try await runBinary(arguments + ["--header", "Authorization: Bearer \(Self.token)"])
        #expect(run.status == 1, "stderr: \(run.stderr)")  // a page failed, one launch's details are missing
        let summary = try #require(run.stderr.split(separator: "\n").last { $0.hasPrefix("feedcrawl: ") && $0.contains(" items: ") })
        #expect(summary.contains("1 page failed (launches 1); 1 launch details missing (launches 1); "), "\(summary)")
        let json = try Output.jsonLine(run.stdout)
        let source = try #require((json["sources"] as? [[String: Any]])?.first)
        #expect(source["failedPages"] as? Int == 1)
        #expect(source["missingDetails"] as? Int == 1)
        #expect(source["items"] as? Int == 4)
        let export = try await ArchiveExport.read(out)
        #expect(try export.jsonItems().count == 4)
        // The echoing 502 did carry the token: it was masked.
        #expect(export.text.contains("bad gateway for ***"))
        var scanned = 0
        for dir in [out, recording] {
            for (path, data) in SourcesEndToEndTests.files(dir) {
                scanned += 1
                #expect(!Self.leaks(String(decoding: data, as: UTF8.self)), "\(path)")
            }
        }
        #expect(scanned > 8)
        #expect(!Self.leaks(run.stdout) && !Self.leaks(run.stderr))

        // Without the header the server refuses the listing: the source fails (exit 3).
        let refused = try await runBinary(["--launches-url", feed.launchesURL, "--out", out, "--retries", "0"])
        #expect(refused.status == 3, "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("You must be logged in"))
    }

    @Test func aSourcesHeadersComeFromTheEnvironmentAndAreShownMasked() async throws {
        let feed = try Self.guardedFeed()
        defer { feed.stop() }
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let config = out + "/feeds.json"
        try #"{"pages": 1, "sources": [{"type": "launches", "url": "\#(feed.launchesURL)", "headers": {"Authorization": {"env": "LAUNCHES_TOKEN"}, "Accept-Language": "en"}}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let environment = ["LAUNCHES_TOKEN": "Bearer \(Self.token)"]
        let run = try await runBinary(["--config", config, "--out", out], environment: environment)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(try await Output.manifestItems(out).count == 8)

        let printed = try await runBinary(["config", "--print", "--config", config, "--out", out], environment: environment)
        #expect(printed.status == 0, "stderr: \(printed.stderr)")
        // The header as the file gives it: the variable's name, never the value.
        let source = try #require((try Output.jsonLine(printed.stdout)["sources"] as? [[String: Any]])?.first)
        let headers = try #require(source["headers"] as? [String: Any])
        #expect((headers["Authorization"] as? [String: String]) == ["env": "LAUNCHES_TOKEN"], "\(printed.stdout)")
        #expect(headers["Accept-Language"] as? String == "en")
        #expect(!Self.leaks(printed.stdout))
        let unset = try await runBinary(["config", "--print", "--config", config, "--out", out])
        #expect(unset.status == 2)
        #expect(unset.stderr.contains("sources[0].headers.Authorization: the environment variable LAUNCHES_TOKEN holds no value"))
    }

    @Test func secretsInTheFileAndHeadersWithLineBreaksAreRefused() async throws {
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let config = out + "/feeds.json"
        try #"{"sources": [{"type": "launches", "url": "http://127.0.0.1:9/graphql", "headers": {"Authorization": "Bearer \#(Self.token)"}}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let literal = try await runBinary(["--config", config, "--out", out])
        #expect(literal.status == 2)
        #expect(literal.stderr.contains("sources[0].headers.Authorization: a secret may not be written in the file"))
        #expect(!Self.leaks(literal.stderr))
        let injected = try await runBinary(["--launches-url", "http://127.0.0.1:9/graphql", "--out", out,
                                            "--header", "X-Token: \(Self.token)\r\nX-Injected: 1"])
        #expect(injected.status == 2)
        #expect(injected.stderr.contains("--header: header X-Token: the value may not hold CR or LF"))
        #expect(!Self.leaks(injected.stderr))
    }
}
