import DemoFeed
import FeedCrawlKit
import Foundation
import Testing
import FeedCrawlSupport

/// Who is asking and by which way: `--version`, `--user-agent`, proxies from the environment
/// and `--proxy`, and the demo feed never through a proxy. Loopback only: a proxy here is a
/// test server, and hosts behind it are names it answers for itself.
@Suite("feedcrawl binary: version, user agent, proxies", .serialized)
struct ProxyAndVersionTests {
    @Test func versionNamesTheReleaseTheCommitAndLibcurl() async throws {
        let result = try await runBinary(["--version"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("feedcrawl \(BuildInfo.version) (commit ") == true, "\(result.stdout)")
        #expect(lines.count == 2 && lines[1].hasPrefix("libcurl 7.") || lines.count == 2 && lines[1].hasPrefix("libcurl 8."),
                "\(result.stdout)")
        #expect(result.stdout.contains("HTTP2") && result.stdout.contains("brotli/"), "\(result.stdout)")
    }

    @Test func theDemoFeedNeverGoesThroughAProxy() async throws {
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        // Port 9 (discard) on loopback: nothing listens; a request sent there would fail.
        let dead = "http://127.0.0.1:9"
        let result = try await runBinary(
            ["--pages", "1", "--out", out],
            environment: ["http_proxy": dead, "HTTP_PROXY": dead, "https_proxy": dead, "all_proxy": dead])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("downloaded"))
    }

    @Test func proxyCarriesEveryRequestWithTheUserAgent() async throws {
        let seen = Seen()
        let proxy = try HTTPServer { request in
            seen.add(request.target, request.header("user-agent") ?? "")
            if request.target.hasPrefix("http://feed.invalid/beers") {
                let page = request.query["page"] == "1"
                    ? #"[{"id":"1","name":"one","image_url":"http://img.invalid/1.png"}]"# : "[]"
                return .json(Array(page.utf8))
            }
            if request.target == "http://img.invalid/1.png" {
                return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(SlowFeed.image))
            }
            return .text("not here", status: 404)
        }
        defer { proxy.stop() }
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await runBinary([
            "--array-url", "http://feed.invalid/beers", "--pages", "1", "--out", out,
            "--proxy", proxy.baseURL, "--user-agent", "mirror-bot/1.0 (ops@example.org)",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let requests = seen.all
        #expect(requests.contains { $0.target == "http://img.invalid/1.png" }, "\(requests.map(\.target))")
        #expect(!requests.isEmpty && requests.allSatisfy { $0.agent == "mirror-bot/1.0 (ops@example.org)" })

        // The default names feedcrawl and its version.
        let again = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: again) }
        seen.clear()
        let plain = try await runBinary(["--array-url", "http://feed.invalid/beers", "--pages", "1", "--out", again,
                                         "--proxy", proxy.baseURL])
        #expect(plain.status == 0, "stderr: \(plain.stderr)")
        #expect(!seen.all.isEmpty && seen.all.allSatisfy { $0.agent == "feedcrawl/\(BuildInfo.version)" })
    }
}

/// The requests a test proxy saw: target and User-Agent.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(target: String, agent: String)] = []

    func add(_ target: String, _ agent: String) { lock.withLock { entries.append((target, agent)) } }
    func clear() { lock.withLock { entries.removeAll() } }
    var all: [(target: String, agent: String)] { lock.withLock { entries } }
}
