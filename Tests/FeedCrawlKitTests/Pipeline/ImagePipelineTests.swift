import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlStorage

/// The image pipeline on its own, over real loopback HTTP: sharing, limits, order, records.
@Suite("ImagePipeline", .serialized)
struct ImagePipelineTests {
    @Test func oneFetchPerURLOneRecordPerItemWithinTheLimits() async throws {
        var settings = PipelineHarness.settings
        settings.limits = .init(concurrency: 2, perHost: 2, maxWaiting: 3)
        let inFlight = Locked((now: 0, peak: 0))
        let harness = try PipelineHarness(settings: settings) { request in
            inFlight.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
            usleep(2000)
            inFlight.withLock { $0.now -= 1 }
            return PipelineImages.serve(request.path)
        }
        // 30 items whose previews repeat every 10 items and large images every 7, and one item
        // listing the same URL as both of its variants.
        var page = (0..<30).map { index in
            harness.item(String(index), page: 1 + index / 10, [("preview", "/p/\(index % 10).png"), ("large", "/l/\(index % 7).png")])
        }
        page.append(harness.item("same", [("preview", "/p/3.png"), ("large", "/p/3.png")]))
        _ = await harness.pipeline.submit(Array(page[..<15]), group: 0)
        _ = await harness.pipeline.submit(Array(page[15...]), group: 1)
        let items = try await harness.finish()

        #expect(items.count == 31)
        let paths = (0..<10).map { "/p/\($0).png" } + (0..<7).map { "/l/\($0).png" }
        for path in paths { #expect(harness.count(path) == 1, "\(path)") }
        #expect(harness.requests.all.count == paths.count)
        var fileOfURL: [String: String] = [:]
        for item in items.values {
            #expect(item.status == .downloaded, "\(item.id)")
            #expect(item.images.map(\.variant) == ["preview", "large"])
            for image in item.images {
                let path = String(image.url.dropFirst(harness.server.baseURL.count))
                #expect(image.sha256 == SHA256.hex(PipelineImages.png(path)))
                #expect(image.bytes == Int64(PipelineImages.png(path).count))
                let file = try #require(image.file)
                #expect(fileOfURL[image.url, default: file] == file)
                fileOfURL[image.url] = file
                #expect(fileSHA256(harness.out.path, file) == image.sha256)
            }
        }
        #expect(inFlight.withLock { $0.peak } <= 2)
        #expect(harness.pipeline.peakWaiting <= 3)
        #expect(harness.pipeline.downloadedBytes == paths.reduce(0) { $0 + Int64(PipelineImages.png($1).count) })
        let finished = harness.events.filter { if case .itemFinished = $0 { true } else { false } }
        #expect(finished.count == 31)
        let fetched = harness.events.filter { if case .imageFetched = $0 { true } else { false } }
        #expect(fetched.count == paths.count)
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
    }

    @Test func aURLThisRunFinishedGivesItsOutcomeWithoutARequest() async throws {
        let harness = try PipelineHarness { PipelineImages.serve($0.path, etag: "\"e\"") }
        _ = await harness.pipeline.submit([harness.item("a", [("image", "/x.png")])], group: 0)
        await harness.pipeline.drain()  // a is recorded and its line is in the journal
        _ = await harness.pipeline.submit([harness.item("b", [("image", "/x.png")])], group: 1)
        _ = await harness.pipeline.submit([harness.item("c", page: 2, [("first", "/y.png"), ("second", "/x.png")])], group: 0)
        let items = try await harness.finish()
        #expect(harness.count("/x.png") == 1)
        #expect(harness.count("/y.png") == 1)
        let a = try #require(items["a"]?.soleImage)
        for other in [items["b"]?.soleImage, items["c"]?.image("second")] {
            let image = try #require(other)
            #expect(image.status == .downloaded)
            #expect(image.file == a.file && image.sha256 == a.sha256 && image.etag == "\"e\"")
            #expect(image.fetchedAt == a.fetchedAt)
        }
        #expect(items["c"]?.image("first")?.status == .downloaded)
    }

    @Test func firstVariantsStartFirstThenEarlierPagesThenSubmissionOrder() async throws {
        var settings = PipelineHarness.settings
        settings.limits = .init(concurrency: 1, perHost: 1, maxWaiting: 100)
        let gate = Gate()
        let harness = try PipelineHarness(settings: settings) { request in
            if request.path == "/first.png" { gate.wait() }
            return PipelineImages.serve(request.path)
        }
        defer { gate.open(); withExtendedLifetime(harness) {} }
        // The first request waits until everything is queued.
        _ = await harness.pipeline.submit([harness.item("0", page: 3, [("small", "/first.png")])], group: 0)
        let page2 = ["x1", "x2"].map { harness.item($0, page: 2, [("small", "/s/\($0).png"), ("large", "/l/\($0).png")]) }
        let page1 = [harness.item("y1", page: 1, [("small", "/s/y1.png"), ("large", "/l/y1.png")])]
        _ = await harness.pipeline.submit([page2[0]], group: 0)
        _ = await harness.pipeline.submit(page1, group: 1)
        _ = await harness.pipeline.submit([page2[1]], group: 0)
        #expect(await waitUntil { gate.waited == 1 })
        gate.open()
        let items = try await harness.finish()
        #expect(items.values.allSatisfy { $0.status == .downloaded })
        #expect(harness.requests.all.map(\.path) == [
            "/first.png", "/s/y1.png", "/s/x1.png", "/s/x2.png", "/l/y1.png", "/l/x1.png", "/l/x2.png",
        ])
    }

    @Test func refusedURLsAndUnusableListingsAreRecordedWithoutARequest() async throws {
        let harness = try PipelineHarness { request in
            switch request.path {
            case "/html.png": return .text("<html><body>sign in</body></html>", contentType: "text/html")
            case "/missing.png": return .text("no", status: 404)
            default: return PipelineImages.serve(request.path)
            }
        }
        var refused = harness.item("refused", [("preview", "/ok.png")])
        refused.images.append(FeedImage(variant: "large", url: "ftp://127.0.0.1/x.jpg"))
        refused.images.append(FeedImage(variant: "web", url: "http://x", problem: "the feed's URL is unusable"))
        let unusable = FeedItem(source: "s", id: "page1-index4", page: 1, title: "", images: [], problem: "missing id")
        _ = await harness.pipeline.submit([
            refused, unusable, harness.item("none", []), harness.item("html", [("image", "/html.png")]),
            harness.item("missing", [("image", "/missing.png")]),
        ], group: 0)
        let items = try await harness.finish()
        #expect(items.count == 5)
        let item = try #require(items["refused"])
        #expect(item.status == .rejected)
        #expect(item.image("preview")?.status == .downloaded)
        #expect(item.image("large")?.status == .rejected)
        #expect(item.image("large")?.error?.contains("unsupported URL scheme") == true)
        #expect(item.image("web")?.error == "the feed's URL is unusable")
        #expect(items["page1-index4"]?.status == .rejected && items["page1-index4"]?.error == "missing id")
        #expect(items["page1-index4"]?.images == [])
        #expect(items["none"]?.status == .noImage)
        #expect(items["html"]?.status == .rejected)
        #expect(items["html"]?.soleImage?.error?.contains("not an image") == true)
        #expect(items["missing"]?.status == .failed && items["missing"]?.soleImage?.error == "HTTP 404")
        // Only the three http URLs were asked for, each once: a 404 and an HTML page are not retried.
        #expect(harness.requests.all.map(\.path).sorted() == ["/html.png", "/missing.png", "/ok.png"])
    }

    @Test func anItemAwaitingDetailsIsRecordedOnceTheyCome() async throws {
        let harness = try PipelineHarness { PipelineImages.serve($0.path) }
        let tokens = await harness.pipeline.submit(
            [harness.item("1", [("small", "/1.png")]), harness.item("2", [("small", "/2.png")])], group: 0,
            awaitingDetails: true)
        await harness.pipeline.drain()
        #expect(harness.recorder.count == 0, "both wait for their details")
        let first = try #require(tokens.first ?? nil)
        harness.pipeline.setDetails(LaunchDetails(rocketName: "Falcon 9", site: "KSC"), token: first)
        #expect(harness.recorder.count == 1)
        // Item 2's details never come: the end of the run records it as it is.
        let items = try await harness.finish()
        #expect(items["1"]?.details == LaunchDetails(rocketName: "Falcon 9", site: "KSC"))
        #expect(items["1"]?.status == .downloaded)
        #expect(items["2"]?.details == nil)
        #expect(items["2"]?.status == .downloaded)
    }

    @Test func onceTheDeviceIsFullNoImageIsFetched() async throws {
        var settings = PipelineHarness.settings
        settings.limits = .init(concurrency: 1, perHost: 1, maxWaiting: 10)
        let gate = Gate()
        let harness = try PipelineHarness(settings: settings, withStorage: true) { request in
            if request.path == "/0.png" { gate.wait() }
            return PipelineImages.serve(request.path)
        }
        defer { gate.open(); withExtendedLifetime(harness) {} }
        let storage = try #require(harness.storage)
        _ = await harness.pipeline.submit((0..<4).map { harness.item(String($0), [("image", "/\($0).png")]) }, group: 0)
        #expect(await waitUntil { gate.waited == 1 })
        // A write elsewhere failed: the device is full. The waiting images are not fetched.
        storage.noteWriteFailure(BackendError.system("save", location: harness.out.path + "/cache/ab/x.part", code: ENOSPC))
        gate.open()
        let items = try await harness.finish()
        #expect(items["0"]?.status == .downloaded)
        for id in ["1", "2", "3"] {
            #expect(items[id]?.status == .failed)
            #expect(items[id]?.soleImage?.error == "not fetched: the output device is full or read-only")
        }
        #expect(harness.requests.all.map(\.path) == ["/0.png"])
    }
}
