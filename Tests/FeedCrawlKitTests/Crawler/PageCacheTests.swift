import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

extension CrawlerTests {
    @Suite("Page cache (OUT/pages)")
    struct PageCacheTests {
        static let key = "Pg-cache+Key/42"

        static func source(_ feed: DemoFeedServer, ttl: Double = 3600) -> SourceConfiguration {
            var config = PixabaySourceConfiguration(url: feed.pixabayURL, key: key, pages: 5, perPage: 5)
            config.pageTTL = ttl
            return .pixabay(config)
        }

        static func feed(hits: Int = 15, log: RequestLog = RequestLog(),
                         _ answer: @escaping @Sendable (ServerRequest) -> ServerResponse? = { _ in nil }) throws -> DemoFeedServer {
            var options = DemoFeedOptions.observing(log, answer)
            options.hits = hits
            return try DemoFeedServer(options: options)
        }

        @Test func pagesAreKeptAndReusedWithinTheTTL() async throws {
            let feed = try Self.feed()
            defer { feed.stop() }
            let out = CrawlDirectory()
            let first = try await runCrawl([Self.source(feed)], out: out.path)
            #expect(feed.stats().api == 3)
            #expect(first.report("pixabay")?.cachedPages == 0)

            // One file per page, named by the hash of the request with the key removed.
            let folder = out.path + "/pages/pixabay"
            let names = TestDirectory.list(folder)
            #expect(names.count == 3)
            let redactor = SecretRedactor(secrets: [Self.key])
            let config = PixabaySourceConfiguration(url: feed.pixabayURL, key: Self.key, perPage: 5)
            for page in 1...3 {
                let identity = FeedRequestIdentity(HTTPRequest(url: config.pageURL(page)), redactor: redactor)
                #expect(!identity.url.contains("key="))
                #expect(names.contains(identity.hash + ".json"))
                let exchange = try FeedExchange.decode(try FileIO.read(folder + "/" + identity.hash + ".json"))
                #expect(exchange.request == identity)
                #expect(exchange.status == 200)
                #expect(exchange.body?.contains("\"totalHits\":15") == true)
                #expect(abs(exchange.fetchedAt - Date().timeIntervalSince1970) < 60)
            }

            let second = try await runCrawl([Self.source(feed)], out: out.path)
            #expect(feed.stats().api == 3)  // nothing asked again
            #expect(second.report("pixabay")?.cachedPages == 3)
            #expect(second.items("pixabay").map(\.id) == first.items("pixabay").map(\.id))
            #expect(second.items("pixabay").allSatisfy { $0.status == .fresh })

            let refreshed = try await runCrawl([Self.source(feed)], out: out.path) { $0.refreshPages = true }
            #expect(feed.stats().api == 6)
            #expect(refreshed.report("pixabay")?.cachedPages == 0)
        }

        @Test func staleAndBadPagesAreFetchedAgain() async throws {
            let log = RequestLog()
            let flaky = Locked(true)
            let feed = try Self.feed(log: log) { request in
                // Page 3 is an HTML error page the first time.
                guard request.path == "/api/", request.query["page"] == "3",
                      flaky.withLock({ let first = $0; $0 = false; return first }) else { return nil }
                return .text("<html>Application error</html>", contentType: "text/html")
            }
            defer { feed.stop() }
            let out = CrawlDirectory()
            let first = try await runCrawl([Self.source(feed)], out: out.path)
            #expect(first.report("pixabay")?.failedPages == 1)
            #expect(TestDirectory.list(out.path + "/pages/pixabay").count == 2)  // the bad page is not kept

            // A second run within the TTL reads the kept pages (settled: not even read) and asks
            // for the bad one alone.
            var before = log.count(path: "/api/")
            let second = try await runCrawl([Self.source(feed)], out: out.path)
            #expect(log.all.filter { $0.path == "/api/" }.dropFirst(before).compactMap { $0.query["page"] } == ["3"])
            #expect(second.report("pixabay")?.cachedPages == 2)
            #expect(second.report("pixabay")?.failedPages == 0)

            // Past the TTL (a run whose TTL is shorter than the pages' age): every page is asked for.
            try await Task.sleep(for: .milliseconds(1100))
            before = log.count(path: "/api/")
            let third = try await runCrawl([Self.source(feed, ttl: 1)], out: out.path)
            #expect(Set(log.all.filter { $0.path == "/api/" }.dropFirst(before).compactMap { $0.query["page"] }) == ["1", "2", "3"])
            #expect(third.report("pixabay")?.cachedPages == 0)
            #expect(third.report("pixabay")?.failedPages == 0)
            #expect(third.items("pixabay").count == 15)
        }

        @Test func aZeroTTLKeepsNothingAndClearsOldPages() async throws {
            let feed = try Self.feed()
            defer { feed.stop() }
            let out = CrawlDirectory()
            _ = try await runCrawl([Self.source(feed)], out: out.path)
            #expect(TestDirectory.list(out.path + "/pages/pixabay").count == 3)
            _ = try await runCrawl([Self.source(feed, ttl: 0), launchesSource(feed, pages: 2)], out: out.path)
            #expect(feed.stats().api == 6)
            #expect(TestDirectory.list(out.path + "/pages/pixabay").isEmpty)
            // The launches source asks for no caching by default.
            #expect(TestDirectory.list(out.path + "/pages/launches").isEmpty)
        }

        /// The hand-written encoder keeps every field exactly: text with quotes, backslashes,
        /// control characters, slashes and non-ASCII; a POST body; a fractional time.
        @Test func exchangeFilesRoundTripTextBodiesExactly() throws {
            let identity = FeedRequestIdentity(method: "POST", url: "http://127.0.0.1/graphql?a=\"b\"", body: "{\"q\":\"x\\ny\"}")
            let text = "{\"hits\":[{\"t\":\"a\\\"b\\\\c/d\tе\u{1}\u{1F600}\"}]}\r\n"
            let response = HTTPResponse(status: 200, headers: [
                HTTPHeader(name: "Content-Type", value: "application/json; charset=\"utf-8\""),
                HTTPHeader(name: "ETag", value: "W/\"1\""),
            ], body: Array(text.utf8))
            let exchange = FeedExchange(source: "pixabay", request: identity, response: response,
                                        redactor: SecretRedactor(secrets: []), fetchedAt: Date(timeIntervalSince1970: 1_732_950_123.456789))
            let bytes = try exchange.encoded()
            let back = try FeedExchange.decode(bytes)
            #expect(back == exchange)
            #expect(back.body == text)
            #expect(back.fetchedAt == 1_732_950_123.456789)
            #expect(back.headers.map(\.name) == ["content-type", "etag"])
            // Foundation reads it as the same value as its own encoding.
            let foundation = try JSONDecoder().decode(FeedExchange.self, from: JSONEncoder().encode(exchange))
            #expect(try JSONDecoder().decode(FeedExchange.self, from: Data(bytes)) == foundation)
        }

        @Test func exchangeFilesRoundTripBinaryBodiesAndErrors() throws {
            let identity = FeedRequestIdentity(method: "GET", url: "http://127.0.0.1/api/?page=1", body: nil)
            let binary: [UInt8] = [0xFF, 0xFE, 0x00, 0x41]
            let response = HTTPResponse(status: 503, headers: [
                HTTPHeader(name: "content-type", value: "application/octet-stream"),
                HTTPHeader(name: "retry-after", value: "7"),
                HTTPHeader(name: "set-cookie", value: "session=1"),
            ], body: binary)
            let exchange = FeedExchange(source: "s", request: identity, response: response, redactor: SecretRedactor(secrets: []))
            let back = try FeedExchange.decode(try exchange.encoded())
            #expect(back == exchange)
            #expect(back.bodyBase64 != nil)
            let replayed = try #require(back.response)
            #expect(replayed.body == binary)
            #expect(replayed.status == 503)
            #expect(replayed.retryAfterSeconds == 7)
            #expect(replayed.header("set-cookie") == nil)  // only the headers that matter are kept
            let failed = FeedExchange(source: "s", request: identity, error: "connection refused")
            #expect(try FeedExchange.decode(try failed.encoded()).response == nil)
        }
    }
}
