import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// The pipeline over a `CacheStore` that is not a directory: everything it stores goes through
/// the store's sink and commit, and a commit may fail with a store error that is no errno.
@Suite("ImagePipeline through a CacheStore")
struct ImagePipelineStoreTests {
    /// A store in memory (test double): sinks collect bytes; `commit` fails for `refused` names
    /// with a remote store's kind of error (no errno).
    final class MemoryStore: CacheStore, @unchecked Sendable {
        final class Sink: CacheSink, @unchecked Sendable {
            var bytes: [UInt8] = []
            var digester = BodyDigester()
            var discarded = false
            var digest: BodyDigest { digester.finish() }
            func write(_ chunk: UnsafeRawBufferPointer) throws {
                bytes.append(contentsOf: chunk)
                digester.update(chunk)
            }
            func discard() { discarded = true }
        }

        let entries = Locked<[String: [UInt8]]>([:])
        let refused = Locked<Set<String>>([])

        func prepare() throws(CacheStoreError) {}
        func makeSink(key: String) throws(CacheStoreError) -> any CacheSink { Sink() }
        func commit(_ sink: any CacheSink, as name: String, replacing: String?) throws(CacheStoreError) {
            guard let sink = sink as? Sink else { preconditionFailure("a sink of another store") }
            if refused.withLock({ $0.contains(name) }) {
                throw CacheStoreError("store", path: "mem://\(name)", code: 0, reason: "remote answered 503")
            }
            entries.withLock {
                $0[name] = sink.bytes
                if let replacing { $0[replacing] = nil }
            }
        }
        func exists(_ name: String, bytes: Int64?) -> Bool {
            entries.withLock { $0[name].map { bytes == nil || Int64($0.count) == bytes } ?? false }
        }
        func list(_ page: ([String]) -> Void) throws(CacheStoreError) { page(entries.withLock { Array($0.keys) }) }
        func remove(_ name: String) throws(CacheStoreError) -> Bool { entries.withLock { $0.removeValue(forKey: name) != nil } }
        func read(_ name: String, _ chunk: (UnsafeRawBufferPointer) -> Void) throws(CacheStoreError) {
            guard let bytes = entries.withLock({ $0[name] }) else { throw CacheStoreError("read", path: name, code: ENOENT) }
            bytes.withUnsafeBytes(chunk)
        }
    }

    @Test func imagesGoIntoTheStoreAndAFailedCommitFailsTheImageOnly() async throws {
        let store = MemoryStore()
        let harness = try PipelineHarness(withStorage: true, store: store) { PipelineImages.serve($0.path) }
        let bad = CacheLayout.relativePath(forURL: harness.url("/b.png"), format: .png)
        store.refused.withLock { $0 = [bad] }

        _ = await harness.pipeline.submit([
            harness.item("a", [("large", "/a.png")]),
            harness.item("b", [("large", "/b.png")]),
        ], group: 0)
        let items = try await harness.finish()
        let a = try #require(items["a"]?.images.first)
        #expect(a.status == .downloaded)
        let file = try #require(a.file)
        #expect(store.entries.withLock { $0[file] } == PipelineImages.png("/a.png"))
        #expect(try store.digest(file).sha256 == a.sha256)
        let b = try #require(items["b"]?.images.first)
        #expect(b.status == .failed)
        #expect(b.error == "cannot store mem://\(bad): remote answered 503")
        #expect(!store.exists(bad, bytes: nil))
        // A store error without an errno is no full disk: the run goes on.
        #expect(harness.storage?.itemError == nil)
        // Nothing was written under OUT/cache.
        #expect(CrawlFixture.cacheFiles(harness.out.path).isEmpty)
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
    }
}
