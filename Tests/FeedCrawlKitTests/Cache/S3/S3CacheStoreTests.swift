import Dispatch
import Foundation
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP
@testable import FeedCrawlStorage

/// `S3CacheStore` against a real SeaweedFS (one `weed server` for the suite, `.seaweedFS`): the
/// image pipeline over it, a second run that uploads nothing, a corrupted spool file refused,
/// unusable buckets and secrets, and list / remove / read.
@Suite("S3CacheStore against SeaweedFS", .serialized, .seaweedFS)
final class S3CacheStoreSeaweedTests {
    let engine: HTTPEngine
    let spool = TestDirectory()

    init() throws {
        engine = try HTTPEngine()
    }

    deinit {
        engine.shutdown()
    }

    /// A store of the suite's server under a fresh prefix (or `bucket`, `secret`, `prefix`).
    func makeStore(prefix: String? = nil, bucket: String? = nil, secret: String? = nil) throws -> S3CacheStore {
        let server = try #require(SeaweedServer.current)
        let client = try S3Client(bucket: bucket ?? server.bucket, configuration: server.configuration(secret: secret),
                                  engine: engine)
        let location = try S3Location(bucket: client.bucket, prefix: prefix ?? "t-" + SeaweedServer.randomToken(8) + "/out")
        return S3CacheStore(client: client, location: location, spool: spool.file("spool"))
    }

    /// The spool folder's files.
    var spooled: [String] { TestDirectory.list(spool.file("spool")) }

    /// A cache entry name for `seed` with `ext`.
    func entryName(_ seed: String, ext: String = "png") -> (key: String, name: String) {
        let key = SHA256.hash(Array(seed.utf8)).hexString
        return (key, "cache/\(key.prefix(2))/\(key).\(ext)")
    }

    @Test func thePipelineStoresEveryImageAsServedAndASecondRunUploadsNothing() async throws {
        let store = try makeStore()
        try store.prepare()
        let harness = try PipelineHarness(withStorage: true, store: store) { PipelineImages.serve($0.path) }
        let paths = ["/a.png", "/b.png", "/c.png"]
        func items() -> [FeedItem] {
            paths.enumerated().map { index, path in
                FeedItem(source: "s", id: "i\(index)", page: 1, title: "item \(index)",
                         images: [FeedImage(variant: "large", url: harness.url(path))])
            }
        }
        _ = await harness.pipeline.submit(items(), group: 0)
        let first = try await harness.finish()
        for (index, path) in paths.enumerated() {
            let image = try #require(first["i\(index)"]?.images.first)
            #expect(image.status == .downloaded)
            let file = try #require(image.file)
            let served = PipelineImages.png(path)
            let key = store.location.key(file)
            #expect(try await store.client.get(key: key) == served)
            let info = try await store.client.head(key: key)
            #expect(info?.contentType == "image/png")
            #expect(info?.size == Int64(served.count))
            #expect(image.sha256 == SHA256.hash(served).hexString)
            #expect(image.bytes == Int64(served.count))
            #expect(try store.digest(file).sha256 == image.sha256)
            #expect(store.exists(file, bytes: Int64(served.count)))
            #expect(!store.exists(file, bytes: Int64(served.count) + 1))
        }
        #expect(store.uploads == 3)
        #expect(spooled.isEmpty)
        #expect(CrawlFixture.cacheFiles(harness.out.path).isEmpty)

        // A second run over the same prefix, with the first run's manifest: every image is held
        // (the new store's listing says so) and nothing is fetched or uploaded.
        let manifest = spool.file("manifest.json")
        try ManifestStore.save(Manifest(generatedAt: Date(), items: Array(first.values)), path: manifest)
        let again = try makeStore(prefix: store.location.prefix)
        let second = try PipelineHarness(archive: ArchiveIndex(paths: [manifest]), withStorage: true, store: again) {
            PipelineImages.serve($0.path)
        }
        #expect(first.values.allSatisfy { again.exists($0.images.first?.file ?? "", bytes: nil) })
        _ = await second.pipeline.submit(items(), group: 0)
        let rerun = try await second.finish()
        for index in paths.indices {
            #expect(rerun["i\(index)"]?.images.first?.status == .fresh)
            #expect(rerun["i\(index)"]?.images.first?.sha256 == first["i\(index)"]?.images.first?.sha256)
        }
        #expect(again.uploads == 0)
        for path in paths { #expect(harness.count(path) == 1) }
        #expect(spooled.isEmpty)
    }

    @Test func aSpoolFileChangedAfterItWasHashedIsRefusedAndLeavesNoObject() async throws {
        let store = try makeStore()
        try store.prepare()
        let (key, name) = entryName("corrupt")
        let body = PipelineImages.png("/corrupt.png")
        let sink = try store.makeSink(key: key)
        try body.withUnsafeBytes { try sink.write($0) }
        let path = try #require((sink as? LocalCacheSink)?.path)
        #expect(path.hasPrefix(spool.file("spool") + "/\(key)."))
        // Flip one byte on disk behind the digest's back.
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        var byte = body[100] ^ 0xFF
        #expect(pwrite(fd, &byte, 1, 100) == 1)
        close(fd)
        do {
            try store.commit(sink, as: name, replacing: nil)
            Issue.record("a corrupted upload was stored")
        } catch {
            #expect(error.code == 0)
            #expect(error.operation == "store")
            #expect(error.description.contains("S3 PUT \(store.location.key(name))"))
            #expect(error.description.contains("(400)"))
        }
        #expect(try await store.client.head(key: store.location.key(name)) == nil)
        #expect(!store.exists(name, bytes: nil))
        #expect(store.uploads == 0)
        #expect(spooled.isEmpty)
    }

    @Test func aMissingBucketOrAWrongSecretFailsPrepareClearly() async throws {
        let missing = try makeStore(bucket: "fc-missing-" + SeaweedServer.randomToken(6))
        do {
            try missing.prepare()
            Issue.record("prepare over a missing bucket succeeded")
        } catch {
            #expect(error.code == 0)
            #expect(error.operation == "list")
            #expect(error.description.contains("NoSuchBucket"), "\(error)")
        }
        let wrong = try makeStore(secret: "not-the-secret-" + SeaweedServer.randomToken(8))
        do {
            try wrong.prepare()
            Issue.record("prepare with a wrong secret succeeded")
        } catch {
            #expect(error.code == 0)
            #expect(error.description.contains("SignatureDoesNotMatch") || error.description.contains("AccessDenied"),
                    "\(error)")
            #expect(!error.description.contains("not-the-secret"))
        }
        // Through the pipeline harness: it fails before any server or download exists.
        #expect(throws: CacheStoreError.self) {
            _ = try PipelineHarness(store: try self.makeStore(bucket: "fc-missing-" + SeaweedServer.randomToken(6))) { _ in
                Issue.record("a request was served")
                return PipelineImages.serve("/x.png")
            }
        }
    }

    @Test func listRemoveReadAndReplaceRoundTrip() async throws {
        let store = try makeStore()
        try store.prepare()
        let (key, name) = entryName("round-trip")
        let body = PipelineImages.png("/round-trip.png")
        let sink = try store.makeSink(key: key)
        try body.withUnsafeBytes { try sink.write($0) }
        let written = sink.digest
        try store.commit(sink, as: name, replacing: nil)
        #expect(spooled.isEmpty)
        #expect(try store.digest(name) == written)
        // A store that was not prepared (manifest --verify) reads too, making its spool folder.
        let verifier = S3CacheStore(client: store.client, location: store.location, spool: spool.file("verify"))
        #expect(try verifier.digest(name) == written)
        #expect(TestDirectory.list(spool.file("verify")).isEmpty)
        var names: [String] = []
        try store.list { names += $0 }
        #expect(names == [name])

        // A newer copy under another name replaces it.
        let (newKey, newName) = entryName("round-trip-2", ext: "jpg")
        let newer = try store.makeSink(key: newKey)
        try body.withUnsafeBytes { try newer.write($0) }
        try store.commit(newer, as: newName, replacing: name)
        #expect(try await store.client.head(key: store.location.key(name)) == nil)
        #expect(try await store.client.head(key: store.location.key(newName))?.contentType == "image/jpeg")
        #expect(!store.exists(name, bytes: nil))
        #expect(store.exists(newName, bytes: Int64(body.count)))

        // Read streams the bytes back; a missing name is `isMissing`.
        var back: [UInt8] = []
        try store.read(newName) { back += $0 }
        #expect(back == body)
        do {
            try store.read(name) { _ in }
            Issue.record("read of a removed object succeeded")
        } catch {
            #expect(error.isMissing)
        }
        #expect(try store.remove(newName))
        #expect(try !store.remove(newName))
        #expect(!store.exists(newName, bytes: nil))
        #expect(throws: CacheStoreError.self) { try store.remove("../x") }
        names = []
        try store.list { names += $0 }
        #expect(names.isEmpty)
        #expect(spooled.isEmpty)
        #expect(store.uploads == 2)
    }
}

/// `S3CacheStore`'s parts that need no server.
@Suite("S3CacheStore parts")
struct S3CacheStorePartsTests {
    /// Every cooperative thread blocked in `run` at once (more callers than cores): with a
    /// plain `Task` and a semaphore nothing runs the tasks that signal them (tried: no end within
    /// 60 s; libdispatch adds a pool thread about once a second at best); the bridge's own queue
    /// runs them, including their resumptions after an `await`. Two callers more than cores: as
    /// many as 8 a core kept the whole test process's pool blocked for 20-40 s (every suite
    /// running beside it stalled, and timing checks elsewhere failed).
    @Test(.timeLimit(.minutes(1))) func theBridgeRunsWhileEveryPoolThreadIsBlockedInIt() async throws {
        let bridge = BlockingBridge()
        let callers = max(2, ProcessInfo.processInfo.activeProcessorCount) + 2
        let total = await withTaskGroup(of: Int.self) { group in
            for index in 0..<callers {
                group.addTask {
                    (try? bridge.run {
                        await withCheckedContinuation { continuation in
                            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) {
                                continuation.resume(returning: index)
                            }
                        }
                    }) ?? -1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(total == (0..<callers).reduce(0, +))
    }

    /// The same with `Task.sleep` (how `S3Client` waits before a retry) in the bridged code.
    @Test(.timeLimit(.minutes(1))) func aSleepInTheBridgeResumesWhileEveryPoolThreadIsBlocked() async throws {
        let bridge = BlockingBridge()
        let callers = max(2, ProcessInfo.processInfo.activeProcessorCount) + 2
        let total = await withTaskGroup(of: Int.self) { group in
            for index in 0..<callers {
                group.addTask {
                    (try? bridge.run {
                        try await Task.sleep(for: .milliseconds(5))
                        return index
                    }) ?? -1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(total == (0..<callers).reduce(0, +))
    }

    @Test func theBridgeRethrows() throws {
        struct Boom: Error {}
        #expect(throws: Boom.self) { try BlockingBridge().run { () async throws -> Int in throw Boom() } }
        #expect(try BlockingBridge().run { 42 } == 42)
    }

    @Test func heldObjectsAnswerFromTheListingAndTheChangesSince() throws {
        let a = "cache/aa/" + String(repeating: "a", count: 64) + ".png"
        let b = "cache/bb/" + String(repeating: "b", count: 64) + ".jpg"
        let c = "cache/cc/" + String(repeating: "c", count: 64) + ".gif"
        var held = HeldObjects()
        held.append(key: try #require(CacheFiles.key(b)), size: 20)
        held.append(key: try #require(CacheFiles.key(a)), size: 10)
        held.seal()
        #expect(held.size(ofKey: try #require(CacheFiles.key(b))) == 20)
        #expect(held.size(ofKey: try #require(CacheFiles.key(a))) == 10)
        #expect(held.size(ofKey: try #require(CacheFiles.key(c))) == nil)
        held.record(c, size: 30)
        held.record(a, size: nil)
        held.record(a.replacingOccurrences(of: ".png", with: ".webp"), size: nil)
        #expect(held.size(ofKey: try #require(CacheFiles.key(a))) == nil)
        #expect(held.size(ofKey: try #require(CacheFiles.key(c))) == 30)
        #expect(MemoryLayout<(key: UInt64, size: Int64)>.stride == 16)
    }

    @Test func contentTypeAndHex() {
        let png = BodyDigest(sha256: "", head: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
                             structure: .truncated(format: .png, reason: "truncated PNG: no IHDR"))
        #expect(S3CacheStore.contentType(name: "cache/ab/x.jpg", digest: png) == "image/jpeg")
        #expect(S3CacheStore.contentType(name: "cache/ab/x.webp", digest: png) == "image/webp")
        #expect(S3CacheStore.contentType(name: "cache/ab/x", digest: png) == "image/png")
        #expect(S3CacheStore.contentType(name: "cache/ab/x.bin", digest: BodyDigest(sha256: "", head: [1, 2]))
            == "application/octet-stream")
        #expect(S3CacheStore.bytes(hex: "00ff10Ab") == [0x00, 0xFF, 0x10, 0xAB])
        let digest = SHA256.hash([1, 2, 3])
        #expect(S3CacheStore.bytes(hex: digest.hexString) == digest)
    }
}
