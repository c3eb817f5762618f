import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

/// Image retries go by the same `RetryPolicy` as feed requests: transient answers (5xx, 408,
/// 429, bodies cut short, resets) are retried with backoff and jitter, `Retry-After` is
/// honoured up to the policy's cap, anything else is final at once.
@Suite("ImagePipeline retries", .serialized)
struct ImagePipelineRetryTests {
    /// Answers each path's attempts (1-based) with `script`; nil serves the image.
    static func harness(
        retry: RetryPolicy, _ script: @escaping @Sendable (_ path: String, _ attempt: Int) -> ServerResponse?
    ) throws -> PipelineHarness {
        var settings = PipelineHarness.settings
        settings.policy.retry = retry
        let attempts = Locked<[String: Int]>([:])
        return try PipelineHarness(settings: settings) { request in
            let attempt = attempts.withLock { $0[request.path, default: 0] += 1; return $0[request.path]! }
            return script(request.path, attempt) ?? PipelineImages.serve(request.path)
        }
    }

    @Test func transientAnswersAreRetriedWithGrowingDelays() async throws {
        let harness = try Self.harness(retry: RetryPolicy(retries: 3, baseDelay: 0.04)) { path, attempt in
            switch path {
            case "/busy.png" where attempt <= 2: return .text("busy", status: 503)
            case "/timeout.png" where attempt == 1: return .text("slow", status: 408)
            case "/reset.png" where attempt == 1: return ServerResponse(body: .reset)
            default: return nil
            }
        }
        _ = await harness.pipeline.submit(
            ["busy", "timeout", "reset"].map { harness.item($0, [("image", "/\($0).png")]) }, group: 0)
        let items = try await harness.finish()
        for id in ["busy", "timeout", "reset"] {
            #expect(items[id]?.status == .downloaded, "\(id): \(items[id]?.soleImage?.error ?? "")")
            #expect(items[id]?.soleImage?.sha256 == SHA256.hex(PipelineImages.png("/\(id).png")))
        }
        #expect(harness.count("/busy.png") == 3)
        #expect(harness.count("/timeout.png") == 2)
        #expect(harness.count("/reset.png") == 2)
        // Retry n waits between half and all of 0.04 s · 2^(n-1).
        let busy = harness.retries.filter { $0.url.hasSuffix("/busy.png") }
        #expect(busy.map(\.attempt) == [1, 2])
        for retry in busy {
            let step = 0.04 * Double(1 << (retry.attempt - 1))
            #expect(retry.delay >= step / 2 && retry.delay <= step, "retry \(retry.attempt): \(retry.delay)")
        }
    }

    @Test func retryAfterIsHonouredUpToMaxRetryWaitAndMoreFailsAtOnce() async throws {
        let times = Locked<[String: [ContinuousClock.Instant]]>([:])
        let policy = RetryPolicy(retries: 2, baseDelay: 0.01, maxDelay: 0.3, maxRetryWait: 2)
        let harness = try Self.harness(retry: policy) { path, attempt in
            times.withLock { $0[path, default: []].append(.now) }
            guard attempt == 1 else { return nil }
            switch path {
            case "/later.png": return ServerResponse(status: 503, headers: [("Retry-After", "1")], body: .bytes(Array("busy".utf8)))
            case "/much-later.png": return ServerResponse(status: 429, headers: [("Retry-After", "3600")], body: .bytes([]))
            default: return nil
            }
        }
        _ = await harness.pipeline.submit(
            [harness.item("later", [("image", "/later.png")]), harness.item("much", [("image", "/much-later.png")])],
            group: 0)
        let started = ContinuousClock.now
        let items = try await harness.finish()
        #expect(items["later"]?.status == .downloaded)
        // Asked for an hour with --max-retry-wait 2s: failed at once, saying what was asked.
        #expect(items["much"]?.status == .failed)
        #expect(items["much"]?.soleImage?.error
            == "HTTP 429: the server asked to retry after 1h (Retry-After: 3600), more than --max-retry-wait 2s")
        #expect(times.withLock { $0["/much-later.png"]?.count } == 1)
        let delays = Dictionary(harness.retries.map { (String($0.url.split(separator: "/").last ?? ""), $0.delay) },
                                uniquingKeysWith: { a, _ in a })
        // A Retry-After of 1 s is waited in full, although backoff steps are capped at 0.3 s.
        #expect(delays["later.png"] == 1)
        #expect(delays["much-later.png"] == nil)
        let later = times.withLock { $0["/later.png"] ?? [] }
        #expect(later.count == 2)
        if later.count == 2 { #expect(later[1] - later[0] >= .milliseconds(990), "the wait was kept") }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func noRetryWaitRunsPastTheDeadline() async throws {
        let policy = RetryPolicy(retries: 2, baseDelay: 0.01, maxRetryWait: 300, deadline: .now + .seconds(3))
        let harness = try Self.harness(retry: policy) { path, attempt in
            attempt == 1 && path == "/slow.png"
                ? ServerResponse(status: 503, headers: [("Retry-After", "120")], body: .bytes([])) : nil
        }
        _ = await harness.pipeline.submit([harness.item("slow", [("image", "/slow.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["slow"]?.status == .failed)
        #expect(items["slow"]?.soleImage?.error == "HTTP 503: a retry after 2m (Retry-After: 120) would pass --deadline")
    }

    @Test func aRetryAfterWithinTheCapIsWaitedInFull() async throws {
        let times = Locked<[ContinuousClock.Instant]>([])
        let harness = try Self.harness(retry: RetryPolicy(retries: 1, baseDelay: 0.01)) { _, attempt in
            times.withLock { $0.append(.now) }
            return attempt == 1 ? ServerResponse(status: 503, headers: [("Retry-After", "1")], body: .bytes([])) : nil
        }
        _ = await harness.pipeline.submit([harness.item("a", [("image", "/a.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["a"]?.status == .downloaded)
        #expect(harness.retries.map(\.delay) == [1.0])
        let seen = times.withLock { $0 }
        #expect(seen.count == 2)
        if seen.count == 2 { #expect(seen[1] - seen[0] >= .milliseconds(990), "Retry-After: 1 was honoured") }
    }

    @Test func bodiesCutShortAreRetriedAndFailOnceTheRetriesAreSpent() async throws {
        let harness = try Self.harness(retry: RetryPolicy(retries: 2, baseDelay: 0.01)) { path, attempt in
            let bytes = PipelineImages.png(path)
            let cut = ServerResponse(headers: [("Content-Type", "image/png")], body: .truncated(bytes, sendBytes: bytes.count / 2))
            switch path {
            case "/once.png": return attempt == 1 ? cut : nil
            case "/always.png": return cut
            default: return nil
            }
        }
        _ = await harness.pipeline.submit(
            [harness.item("once", [("image", "/once.png")]), harness.item("always", [("image", "/always.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["once"]?.status == .downloaded)
        #expect(items["once"]?.soleImage?.sha256 == SHA256.hex(PipelineImages.png("/once.png")))
        #expect(items["always"]?.status == .failed)
        #expect(items["always"]?.soleImage?.error?.contains("cut short") == true)
        #expect(items["always"]?.soleImage?.file == nil)
        #expect(harness.count("/once.png") == 2)
        #expect(harness.count("/always.png") == 3)  // one try and two retries
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
        #expect(CrawlFixture.cacheFiles(harness.out.path).count == 1)
    }

    @Test func answersThatAreNotTransientAreNotRetried() async throws {
        let harness = try Self.harness(retry: RetryPolicy(retries: 3, baseDelay: 0.01)) { path, _ in
            switch path {
            case "/gone.png": return .text("gone", status: 410)
            case "/forbidden.png": return .text("no", status: 403)
            case "/garbage.png":
                return ServerResponse(headers: [("Content-Type", "image/jpeg")], body: .bytes(ImageFixtures.garbage(count: 500, seed: 3)))
            default: return nil
            }
        }
        _ = await harness.pipeline.submit(
            ["gone", "forbidden", "garbage"].map { harness.item($0, [("image", "/\($0).png")]) }, group: 0)
        let items = try await harness.finish()
        #expect(items["gone"]?.status == .failed && items["gone"]?.soleImage?.error == "HTTP 410")
        #expect(items["forbidden"]?.status == .failed && items["forbidden"]?.soleImage?.error == "HTTP 403")
        #expect(items["garbage"]?.status == .rejected && items["garbage"]?.soleImage?.error == "wrong magic bytes")
        #expect(harness.requests.all.count == 3)
        #expect(harness.retries.isEmpty)
    }
}
