import DemoFeed
import Testing
@testable import FeedCrawlKit

/// Bad image responses, end to end: DemoFeed over loopback → libcurl → validation → manifest.
extension CrawlerTests {
    @Suite("Crawler validation", .serialized)
    struct CrawlValidationTests {
        /// Crawls one Pixabay page of 10 items whose images `answer` serves; returns the images'
        /// items and how often each image path was requested.
        func crawl(
            maxImageBytes: Int64 = 20 << 20, retries: Int = 3, answer: @escaping @Sendable (ServerRequest) -> ServerResponse?,
            feedOptions: (inout DemoFeedOptions) -> Void = { _ in }
        ) async throws -> (items: [ManifestItem], requests: [String: Int], out: TestDirectory, report: CrawlReport) {
            let out = TestDirectory()
            let log = PathCounter()
            var options = CrawlFixture.options(log: log) { request in
                CrawlFixture.isImage(request) ? answer(request) : nil
            }
            feedOptions(&options)
            let feed = try DemoFeedServer(options: options)
            defer { feed.stop() }
            var configuration = CrawlFixture.configuration(feed, out: out.path)
            configuration.maxImageBytes = maxImageBytes
            configuration.retries = retries
            let (report, manifest) = try await CrawlFixture.run(configuration)
            return (manifest.items, log.counts(prefix: "/img/"), out, report)
        }

        @Test func htmlWithStatus200IsRejectedAndNotRetried() async throws {
            let html = Array("<!DOCTYPE html><html><body>Sign in to continue</body></html>".utf8)
            let result = try await crawl { _ in
                ServerResponse(headers: [("Content-Type", "text/html; charset=utf-8")], body: .bytes(html))
            }
            #expect(result.items.count == 10)
            for item in result.items {
                #expect(item.status == .rejected)
                #expect(item.soleImage?.error?.contains("not an image") == true, "\(item.soleImage?.error ?? "")")
                #expect(item.soleImage?.file == nil)
            }
            #expect(result.requests.count == 10)
            #expect(result.requests.values.allSatisfy { $0 == 1 })
            #expect(CrawlFixture.cacheFiles(result.out.path).isEmpty)
            #expect(CrawlFixture.partFiles(result.out.path).isEmpty)
        }

        @Test func htmlBodyUnderAGenericTypeIsRejected() async throws {
            let html = Array("  <html><head><title>404</title></head></html>".utf8)
            let result = try await crawl { _ in
                ServerResponse(headers: [("Content-Type", "application/octet-stream")], body: .bytes(html))
            }
            #expect(result.items.allSatisfy { $0.status == .rejected && $0.soleImage?.error == "not an image (HTML body)" })
            #expect(result.requests.values.allSatisfy { $0 == 1 })
        }

        @Test func wrongMagicBytesAreRejectedAndNotRetried() async throws {
            let garbage = ImageFixtures.garbage(count: 3000, seed: 7)
            let result = try await crawl { _ in
                ServerResponse(headers: [("Content-Type", "image/jpeg")], body: .bytes(garbage))
            }
            #expect(result.items.count == 10)
            #expect(result.items.allSatisfy { $0.status == .rejected && $0.soleImage?.error == "wrong magic bytes" })
            #expect(result.requests.count == 10)
            #expect(result.requests.values.allSatisfy { $0 == 1 })
            #expect(CrawlFixture.cacheFiles(result.out.path).isEmpty)
            #expect(result.report.count(.rejected) == 10)
        }

        @Test func oversizedChunkedBodyIsRejectedAndNotRetried() async throws {
            // No Content-Length: only counting the streamed bytes can catch it.
            let big = CrawlFixture.png(side: 32, bytes: 64 * 1024)
            let result = try await crawl(maxImageBytes: 16 * 1024) { _ in
                ServerResponse(headers: [("Content-Type", "image/png")], body: .chunked(big, chunkSize: 4096))
            }
            #expect(result.items.count == 10)
            for item in result.items {
                #expect(item.status == .rejected)
                #expect(item.soleImage?.error?.contains("16384") == true, "\(item.soleImage?.error ?? "")")
            }
            #expect(result.requests.values.allSatisfy { $0 == 1 })
            #expect(CrawlFixture.cacheFiles(result.out.path).isEmpty)
            #expect(CrawlFixture.partFiles(result.out.path).isEmpty)
        }

        @Test func truncatedBodyIsRetriedThenFailed() async throws {
            let result = try await crawl(retries: 2, answer: { _ in nil }) { options in
                options.truncateRate = 1
            }
            #expect(result.items.count == 10)
            for item in result.items {
                #expect(item.status == .failed)
                #expect(item.soleImage?.error?.contains("cut short") == true, "\(item.soleImage?.error ?? "")")
            }
            // One try and two retries per image.
            #expect(result.requests.count == 10)
            #expect(result.requests.values.allSatisfy { $0 == 3 })
            #expect(CrawlFixture.cacheFiles(result.out.path).isEmpty)
            #expect(CrawlFixture.partFiles(result.out.path).isEmpty)
        }

        @Test func truncationThatStopsIsRecoveredByARetry() async throws {
            // Cut every image's first answer short, serve the second in full.
            let seen = PathCounter()
            let image = CrawlFixture.png(side: 20)
            let result = try await crawl(retries: 1) { request in
                seen.record(request)
                if seen.counts(prefix: request.path)[request.path] == 1 {
                    return ServerResponse(headers: [("Content-Type", "image/png")], body: .truncated(image, sendBytes: 100))
                }
                return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(image))
            }
            #expect(result.items.allSatisfy { $0.status == .downloaded && $0.soleImage?.sha256 == CrawlFixture.sha256(image) })
            #expect(result.requests.values.allSatisfy { $0 == 2 })
        }
    }
}
