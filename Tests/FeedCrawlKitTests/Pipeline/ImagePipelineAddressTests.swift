import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

/// Image requests go only where the run allows: never to link-local addresses, to loopback and
/// private ones only when a feed of the run is on one (or `--allow-private-addresses`). Every
/// refusal happens before a connection: no packet leaves for a refused address.
@Suite("ImagePipeline address policy", .serialized)
struct ImagePipelineAddressTests {
    @Test func loopbackImagesAreRefusedUnlessTheScopeIsOpen() async throws {
        var settings = PipelineHarness.settings
        settings.privateAddresses = PrivateAddressScope(allowed: false)
        let harness = try PipelineHarness(settings: settings) { request in PipelineImages.serve(request.path) }
        _ = await harness.pipeline.submit([harness.item("a", [("image", "/a.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["a"]?.status == .rejected)
        #expect(items["a"]?.soleImage?.error?.hasPrefix("refused 127.0.0.1: loopback address") == true,
                "\(items["a"]?.soleImage?.error ?? "")")
        #expect(harness.requests.all.isEmpty, "a request reached the server")
    }

    @Test func linkLocalIsRefusedEvenWithPrivateAddressesAllowed() async throws {
        let harness = try PipelineHarness { request in PipelineImages.serve(request.path) }  // scope open
        let metadata = FeedItem(source: "s", id: "m", page: 1, title: "m", images: [
            FeedImage(variant: "image", url: "http://169.254.169.254/latest/meta-data/iam/image.png"),
            FeedImage(variant: "v6", url: "http://[fe80::1]/x.png"),
        ])
        _ = await harness.pipeline.submit([metadata, harness.item("ok", [("image", "/ok.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["m"]?.images.map(\.status) == [.rejected, .rejected])
        #expect(items["m"]?.images.first?.error?.hasPrefix("refused 169.254.169.254: link-local address") == true,
                "\(items["m"]?.images.first?.error ?? "")")
        #expect(items["ok"]?.status == .downloaded)
    }

    @Test func aFeedOnALocalAddressOpensTheScope() {
        let scope = PrivateAddressScope()
        scope.noteFeed(host: "203.0.113.7")
        scope.noteFeed(host: "pixabay.com")
        scope.noteFeed(host: "169.254.169.254")  // a link-local feed opens nothing
        #expect(!scope.isOpen)
        scope.noteFeed(host: "10.1.2.3")
        #expect(scope.isOpen)
        let local = PrivateAddressScope()
        local.noteFeed(host: "localhost")
        #expect(local.isOpen)
        let v6 = PrivateAddressScope()
        v6.noteFeed(host: "::1")
        #expect(v6.isOpen)
    }
}
