import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// Cancellation at each grain, on the path the crawler runs: one URL (its last subscriber leaves:
/// the source that alone wanted it is cancelled), one source (`cancel(group:)`), everything
/// (`cancelAll(reason:)`, as a signal or `--deadline`).
@Suite("ImagePipeline cancellation", .serialized)
struct ImagePipelineCancellationTests {
    /// An image that takes about 60 seconds to arrive: cancellation must come long before (and a
    /// loaded machine has time to see its temporary file).
    static let slowImage = CrawlFixture.png(side: 24, bytes: 1200)
    static let slow = ServerResponse(headers: [("Content-Type", "image/png")], body: .drip(slowImage, bytesPerSecond: 20))

    @Test func aRunningURLNoSourceWantsAnyMoreStopsAndLeavesNoPartialFile() async throws {
        // The drip is far below libcurl's low-speed limit (1 KiB/s): with the default 15 s the
        // transfer timed out and was retried under a loaded CI (two requests, and a moment with
        // no temporary file). Only cancellation may end it here.
        var settings = PipelineHarness.settings
        settings.policy.lowSpeedTimeSeconds = 600
        let harness = try PipelineHarness(settings: settings) { request in
            request.path == "/slow.png" ? Self.slow : PipelineImages.serve(request.path)
        }
        // Source 1 alone wants the slow image (twice: an item's variant and another item).
        _ = await harness.pipeline.submit([harness.item("b", [("image", "/b.png")]), harness.item("c", [("image", "/c.png")])], group: 0)
        _ = await harness.pipeline.submit([
            harness.item("a", [("image", "/slow.png")]), harness.item("d", page: 2, [("first", "/d.png"), ("second", "/slow.png")]),
        ], group: 1)
        // The slow body is arriving: its temporary file exists.
        #expect(await waitUntil(seconds: 60) { !CrawlFixture.partFiles(harness.out.path).isEmpty })
        // d's first image stored (not only requested: CI once cancelled between the two, and
        // the image was given up with its source).
        let first = CacheLayout.relativePath(forURL: harness.url("/d.png"), format: .png)
        #expect(await waitUntil(seconds: 60) { FileIO.exists(harness.out.path + "/" + first) })
        harness.pipeline.cancel(group: 1)
        let items = try await harness.finish()
        #expect(items["a"]?.status == .cancelled)
        #expect(items["a"]?.soleImage?.error == "cancelled")
        #expect(items["d"]?.image("second")?.status == .cancelled)
        #expect(items["b"]?.status == .downloaded && items["c"]?.status == .downloaded)
        #expect(harness.count("/slow.png") == 1)
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
        let slow = CacheLayout.relativePath(forURL: harness.url("/slow.png"), format: .png)
        #expect(!FileIO.exists(harness.out.path + "/" + slow))
        #expect(CrawlFixture.cacheFiles(harness.out.path).count == 3)
    }

    @Test func aWaitingURLNoSourceWantsAnyMoreIsNeverRequested() async throws {
        var settings = PipelineHarness.settings
        settings.limits = .init(concurrency: 1, perHost: 1, maxWaiting: 10)
        let gate = Gate()
        let harness = try PipelineHarness(settings: settings) { request in
            if request.path == "/first.png" { gate.wait() }
            return PipelineImages.serve(request.path)
        }
        defer { gate.open(); withExtendedLifetime(harness) {} }
        _ = await harness.pipeline.submit([harness.item("first", [("image", "/first.png")])], group: 0)
        _ = await harness.pipeline.submit([harness.item("second", [("image", "/second.png")])], group: 1)
        _ = await harness.pipeline.submit([harness.item("third", [("image", "/third.png")])], group: 0)
        #expect(await waitUntil { gate.waited == 1 })
        harness.pipeline.cancel(group: 1)
        #expect(harness.recorder.count == 1, "the waiting image's item is recorded at once")
        gate.open()
        let items = try await harness.finish()
        #expect(items["second"]?.status == .cancelled)
        #expect(items["first"]?.status == .downloaded && items["third"]?.status == .downloaded)
        #expect(harness.requests.all.map(\.path) == ["/first.png", "/third.png"])
    }

    @Test func aCancelledSourceLeavesASharedURLToTheOtherSource() async throws {
        let gate = Gate()
        let harness = try PipelineHarness { request in
            if request.path == "/shared.png" || request.path == "/own.png" { gate.wait() }
            return PipelineImages.serve(request.path)
        }
        defer { gate.open(); withExtendedLifetime(harness) {} }
        // Source 0 lists the shared image and one of its own; source 1 only the shared one.
        _ = await harness.pipeline.submit(
            [harness.item("a", [("image", "/shared.png")]), harness.item("b", [("image", "/own.png")])], group: 0)
        _ = await harness.pipeline.submit([harness.item("c", [("image", "/shared.png")])], group: 1)
        #expect(await waitUntil { gate.waited == 2 })  // both transfers are running

        harness.pipeline.cancel(group: 0)
        // Source 0's items are recorded cancelled at once; its own transfer is stopped.
        #expect(harness.recorder.count == 2)
        // A later page of the cancelled source is cancelled without a request.
        _ = await harness.pipeline.submit([harness.item("later", page: 2, [("image", "/later.png")])], group: 0)
        gate.open()
        let items = try await harness.finish()
        #expect(items["a"]?.status == .cancelled)
        #expect(items["b"]?.status == .cancelled)
        #expect(items["later"]?.status == .cancelled)
        let shared = try #require(items["c"]?.soleImage)
        #expect(shared.status == .downloaded)
        #expect(shared.sha256 == SHA256.hex(PipelineImages.png("/shared.png")))
        #expect(harness.count("/shared.png") == 1)
        #expect(harness.count("/later.png") == 0)
        #expect(CrawlFixture.cacheFiles(harness.out.path) == [try #require(shared.file)])
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
    }

    @Test func aURLListedRightAfterItsOnlySourceWasCancelledIsFetchedForTheNewOne() async throws {
        let gate = Gate()
        let harness = try PipelineHarness { request in
            if request.path == "/u.png" { gate.wait() }
            return PipelineImages.serve(request.path)
        }
        defer { gate.open(); withExtendedLifetime(harness) {} }
        _ = await harness.pipeline.submit([harness.item("a", [("image", "/u.png")])], group: 0)
        #expect(await waitUntil { gate.waited == 1 })
        // Source 0 goes: its transfer of /u.png is being stopped when source 1 lists the URL.
        harness.pipeline.cancel(group: 0)
        _ = await harness.pipeline.submit([harness.item("b", [("image", "/u.png")])], group: 1)
        gate.open()
        let items = try await harness.finish()
        #expect(items["a"]?.status == .cancelled)
        #expect(items["b"]?.status == .downloaded, "\(items["b"]?.soleImage?.error ?? "")")
        #expect(items["b"]?.soleImage?.sha256 == SHA256.hex(PipelineImages.png("/u.png")))
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
        #expect(try CrawlFixture.cacheFiles(harness.out.path) == [#require(items["b"]?.soleImage?.file)])
    }

    @Test func cancelAllStopsWhatRunsAndWaitsWithItsReason() async throws {
        var settings = PipelineHarness.settings
        settings.limits = .init(concurrency: 2, perHost: 2, maxWaiting: 10)
        let gate = Gate()
        let harness = try PipelineHarness(settings: settings) { request in
            gate.wait()
            return PipelineImages.serve(request.path)
        }
        defer { gate.open(); withExtendedLifetime(harness) {} }
        _ = await harness.pipeline.submit((0..<5).map { harness.item(String($0), [("image", "/\($0).png")]) }, group: 0)
        #expect(await waitUntil { gate.waited == 2 })
        harness.pipeline.cancelAll(reason: "cancelled: deadline reached")
        _ = await harness.pipeline.submit([harness.item("late", page: 2, [("image", "/late.png")])], group: 1)
        // Everything ends without the server answering.
        let items = try await harness.finish()
        #expect(items.count == 6)
        for item in items.values {
            #expect(item.status == .cancelled, "\(item.id)")
            #expect(item.soleImage?.error == "cancelled: deadline reached", "\(item.id)")
            #expect(item.soleImage?.file == nil)
        }
        #expect(harness.requests.all.count == 2)
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
        #expect(CrawlFixture.cacheFiles(harness.out.path).isEmpty)
    }

    @Test func aRetryWaitingForRetryAfterIsCancelledToo() async throws {
        let harness = try PipelineHarness { request in
            request.path == "/busy.png"
                ? ServerResponse(status: 503, headers: [("Retry-After", "30")], body: .bytes([]))
                : PipelineImages.serve(request.path)
        }
        _ = await harness.pipeline.submit([harness.item("busy", [("image", "/busy.png")])], group: 1)
        _ = await harness.pipeline.submit([harness.item("ok", [("image", "/ok.png")])], group: 0)
        #expect(await waitUntil { !harness.retries.isEmpty })
        harness.pipeline.cancel(group: 1)
        let items = try await harness.finish()
        #expect(items["busy"]?.status == .cancelled)
        #expect(items["ok"]?.status == .downloaded)
        #expect(harness.count("/busy.png") == 1)
    }
}
