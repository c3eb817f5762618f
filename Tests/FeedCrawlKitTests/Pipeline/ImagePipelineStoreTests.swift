import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
@testable import FeedCrawlStorage

/// The pipeline over a backend that is not a folder (the memory store): everything it stores is
/// staged and saved through the backend, and a save may fail with a store's error that is no
/// errno.
@Suite("ImagePipeline through a Backend")
struct ImagePipelineStoreTests {
    @Test func imagesGoIntoTheBackendAndAFailedSaveFailsTheImageOnly() async throws {
        let memory = MemoryBackend()
        let harness = try PipelineHarness(withStorage: true, backend: memory) { PipelineImages.serve($0.path) }
        let bad = CacheLayout.relativePath(forURL: harness.url("/b.png"), format: .png)

        _ = await harness.pipeline.submit([harness.item("a", [("large", "/a.png")])], group: 0)
        await harness.pipeline.drain()
        // The store refuses the next save (b's image): an answer of the store's, not a full disk.
        memory.failNext("save", kind: .refused, on: .image)
        _ = await harness.pipeline.submit([harness.item("b", page: 2, [("large", "/b.png")])], group: 0)
        let items = try await harness.finish()
        let a = try #require(items["a"]?.images.first)
        #expect(a.status == .downloaded)
        let file = try #require(a.file.flatMap(FileHandle.image(file:)))
        let stored = try await memory.load(file, range: nil, maxBytes: 1 << 20)
        #expect(stored == PipelineImages.png("/a.png"))
        #expect(SHA256.hex(stored) == a.sha256)
        let b = try #require(items["b"]?.images.first)
        #expect(b.status == .failed)
        #expect(b.error == "cannot save memory:\(bad): injected failure")
        #expect(try await memory.stat(try #require(FileHandle.image(file: bad))) == nil)
        // A store error that is no full disk: the run goes on.
        #expect(harness.storage?.itemError == nil)
        // Nothing was written under OUT.
        #expect(TestDirectory.list(harness.out.path).isEmpty)
    }

    /// A page's intent (the keys of its images, `RunIntents`) is saved before any of them is
    /// requested: when the store refuses it, the page's images fail without a request (a run
    /// killed later could not find what they left), and the next page goes on.
    @Test func aPageWhoseIntentCannotBeSavedFailsItsImagesWithoutARequest() async throws {
        let memory = MemoryBackend()
        let harness = try PipelineHarness(withStorage: true, backend: memory) { PipelineImages.serve($0.path) }
        memory.failNext("save", kind: .refused, on: .archive)
        _ = await harness.pipeline.submit([harness.item("a", [("large", "/a.png")])], group: 0)
        _ = await harness.pipeline.submit([harness.item("b", page: 2, [("large", "/b.png")])], group: 0)
        let items = try await harness.finish()
        let a = try #require(items["a"]?.images.first)
        #expect(a.status == .failed)
        #expect(a.error?.hasPrefix("not fetched: cannot save memory:archive/intents/") == true, "\(a.error ?? "")")
        #expect(harness.count("/a.png") == 0)
        #expect(items["b"]?.images.first?.status == .downloaded)
        #expect(harness.count("/b.png") == 1)
    }
}
