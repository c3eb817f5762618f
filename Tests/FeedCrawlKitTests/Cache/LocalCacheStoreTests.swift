import DemoFeed
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlSupport
import FeedCrawlHTTP

/// The local directory `CacheStore`: names, the sink, commit, exists, list, remove, read; and the
/// HTTP engine streaming into its sinks.
@Suite("LocalCacheStore")
struct LocalCacheStoreTests {
    static let body = patternBytes(300_000, seed: 11)
    static let key = SHA256.hex("https://cdn.example/a.png")
    static let entry = CacheLayout.relativePath(forKey: key, format: .png)

    /// A prepared store in a fresh OUT.
    static func store(_ dir: TestDirectory) throws -> LocalCacheStore {
        let store = LocalCacheStore(layout: CacheLayout(outDirectory: dir.path))
        try store.prepare()
        return store
    }

    static func listed(_ store: LocalCacheStore) throws -> Set<String> {
        var names = Set<String>()
        try store.list { names.formUnion($0) }
        return names
    }

    static func write(_ sink: any CacheSink, _ bytes: [UInt8], chunk: Int = 7_001) throws {
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try bytes[start..<end].withUnsafeBytes { try sink.write($0) }
            start = end
        }
    }

    @Test func commitIsCompleteOrAbsent() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        // A sink of another store of the same OUT, never committed.
        let other = try Self.store(dir).makeSink(key: Self.key)
        let mine = try store.makeSink(key: Self.key)
        try Self.write(mine, Self.body)
        // Written, not committed: only the partial name is there.
        #expect(!store.exists(Self.entry, bytes: nil))
        let partials = try Self.listed(store).filter(CacheLayout.isTemporary)
        #expect(partials.count == 2)
        #expect(partials.allSatisfy { $0.hasPrefix("cache/\(Self.key.prefix(2))/\(Self.key).") })
        try store.commit(mine, as: Self.entry, replacing: nil)
        #expect(store.exists(Self.entry, bytes: Int64(Self.body.count)))
        #expect(!store.exists(Self.entry, bytes: 1))
        #expect(FileIO.exists(dir.file(Self.entry)))
        #expect(try FileIO.read(dir.file(Self.entry)) == Self.body)
        // The committed sink's partial name is gone; the other sink's is still listed.
        #expect(try Self.listed(store).filter(CacheLayout.isTemporary).count == 1)
        #expect(try Self.listed(store).contains(Self.entry))
        withExtendedLifetime(other) {}
    }

    @Test func aFailedCommitLeavesNeitherTheEntryNorThePartial() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        // The final name is taken by a folder that is not empty: the rename fails (EISDIR/ENOTEMPTY).
        try AtomicFile.createDirectories(dir.file(Self.entry))
        try AtomicFile.write([1], to: dir.file(Self.entry + "/x"))
        let sink = try store.makeSink(key: Self.key)
        try Self.write(sink, Self.body)
        do {
            try store.commit(sink, as: Self.entry, replacing: nil)
            Issue.record("expected the commit to fail")
        } catch {
            #expect(error.operation == "store")
            #expect(error.path == dir.file(Self.entry))
            #expect(error.code != 0)
        }
        #expect(try Self.listed(store).filter(CacheLayout.isTemporary).isEmpty)
        #expect(!store.exists(Self.entry, bytes: nil))
    }

    @Test func commitRemovesTheReplacedCopy() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let old = CacheLayout.relativePath(forKey: Self.key, format: .jpeg)
        let first = try store.makeSink(key: Self.key)
        try Self.write(first, [1, 2, 3])
        try store.commit(first, as: old, replacing: nil)
        let second = try store.makeSink(key: Self.key)
        try Self.write(second, Self.body)
        try store.commit(second, as: Self.entry, replacing: old)
        #expect(try Self.listed(store) == [Self.entry])
    }

    @Test func discardLeavesNothing() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let sink = try store.makeSink(key: Self.key)
        try Self.write(sink, Self.body)
        sink.discard()
        sink.discard()  // twice changes nothing
        #expect(try Self.listed(store).isEmpty)
        // A sink let go without commit or discard is removed too.
        do {
            let dropped = try store.makeSink(key: Self.key)
            try Self.write(dropped, [1])
        }
        #expect(try Self.listed(store).isEmpty)
    }

    @Test func listRemoveAndNamesOutsideTheCache() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let sink = try store.makeSink(key: Self.key)
        try Self.write(sink, [1, 2])
        try store.commit(sink, as: Self.entry, replacing: nil)
        let leftover = try store.makeSink(key: Self.key)
        try Self.write(leftover, [3])
        try AtomicFile.write([4], to: dir.file("cache/00/notes.txt"))
        let names = try Self.listed(store)
        #expect(names.count == 3)
        #expect(names.contains(Self.entry) && names.contains("cache/00/notes.txt"))
        #expect(try store.removePartials() == 1)
        #expect(try store.remove("cache/00/notes.txt"))
        #expect(try !store.remove("cache/00/notes.txt"))
        #expect(try store.remove(Self.entry))
        #expect(try Self.listed(store).isEmpty)
        for outside in ["manifest.json", "cache/../manifest.json", "/etc/passwd", "cache//x"] {
            #expect(throws: CacheStoreError.self) { try store.remove(outside) }
        }
        // No cache folder at all: nothing listed, nothing held.
        let empty = LocalCacheStore(layout: CacheLayout(outDirectory: TestDirectory().path + "/none"))
        #expect(try Self.listed(empty).isEmpty)
        #expect(!empty.exists(Self.entry, bytes: nil))
    }

    @Test func aWriteFailureNamesThePathAndErrno() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let sink = try store.makeSink(key: Self.key)
        WriteFaults.arm(directory: dir.path, allowBytes: 10_000)
        defer { WriteFaults.disarm(directory: dir.path) }
        do {
            try Self.write(sink, Self.body)
            Issue.record("expected ENOSPC")
        } catch let error as CacheStoreError {
            #expect(error.operation == "write")
            #expect(error.code == ENOSPC)
            #expect(error.path.hasPrefix(dir.file("cache/\(Self.key.prefix(2))/\(Self.key).")))
            #expect(error.path.hasSuffix(".part"))
            #expect(error.description.contains("no space left on device"))
        }
        sink.discard()
        #expect(try Self.listed(store).isEmpty)
        // Creating the partial file in a folder that is gone: the path and errno too.
        let unprepared = LocalCacheStore(layout: CacheLayout(outDirectory: dir.file("elsewhere")))
        #expect(throws: CacheStoreError.self) { _ = try unprepared.makeSink(key: Self.key) }
    }

    @Test func readDigestsEqualTheSinks() throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let sink = try store.makeSink(key: Self.key)
        try Self.write(sink, Self.body)
        let written = sink.digest
        #expect(written.sha256 == SHA256.hex(Self.body))
        #expect(written.size == Int64(Self.body.count))
        #expect(written.head == Array(Self.body.prefix(BodyDigest.headLimit)))
        try store.commit(sink, as: Self.entry, replacing: nil)
        #expect(try store.digest(Self.entry) == written)
        do {
            _ = try store.digest(CacheLayout.relativePath(forKey: Self.key, format: .gif))
            Issue.record("expected a missing entry")
        } catch {
            #expect(error.isMissing)
        }
    }

    @Test func namesResolveAgainstTheOpenOutNotItsPath() throws {
        let parent = TestDirectory()
        let before = parent.file("before")
        try AtomicFile.createDirectories(before)
        let store = LocalCacheStore(layout: CacheLayout(outDirectory: before))
        try store.prepare()
        // OUT moves after the store opened it: the descriptor follows it, a path would not.
        #expect(rename(before, parent.file("after")) == 0)
        let sink = try store.makeSink(key: Self.key)
        try Self.write(sink, [1, 2, 3])
        try store.commit(sink, as: Self.entry, replacing: nil)
        #expect(try FileIO.read(parent.file("after/" + Self.entry)) == [1, 2, 3])
        #expect(store.exists(Self.entry, bytes: 3))
    }

    // MARK: The engine streaming into the store's sinks

    static let handler: HTTPServer.Handler = { req in
        switch req.path {
        case "/big": return ServerResponse(headers: [("Content-Type", "image/png")], body: .bytes(body))
        case "/chunked": return ServerResponse(body: .chunked(body, chunkSize: 7_001))
        case "/empty": return ServerResponse(status: 200)
        case "/missing": return .text("gone", status: 404)
        case "/truncated": return ServerResponse(body: .truncated(body, sendBytes: 100_000))
        default: return .text("?", status: 400)
        }
    }

    /// Fetches `path` into a sink of `store`; the sink the engine handed back.
    static func fetch(_ path: String, into store: LocalCacheStore) async throws -> (HTTPResponse, (any CacheSink)?) {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let request = HTTPRequest(url: server.baseURL + path, destination: .sink { try store.makeSink(key: Self.key) })
                let completed = Locked<Result<CompletedTransfer, any Error>?>(nil)
                _ = try engine.start(request) { result in completed.withLock { $0 = result } }
                #expect(await waitUntil { completed.withLock { $0 } != nil })
                let result = try #require(completed.withLock { $0 })
                let value = try result.get()
                return (value.response, value.sink as? any CacheSink)
            }
        }
    }

    @Test(arguments: ["/big", "/chunked"])
    func theEngineStreamsIntoASinkWhoseDigestIsTheFilesHash(path: String) async throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let (response, sink) = try await Self.fetch(path, into: store)
        #expect(response.status == 200)
        let handed = try #require(sink)
        #expect(handed.digest.sha256 == SHA256.hex(Self.body))
        try store.commit(handed, as: Self.entry, replacing: nil)
        #expect(try store.digest(Self.entry) == handed.digest)
        #expect(try Self.listed(store) == [Self.entry])
    }

    @Test func anEmptyBodyHasTheEmptyDigestAndAnErrorStatusNoSink() async throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        let (empty, sink) = try await Self.fetch("/empty", into: store)
        #expect(empty.status == 200)
        let handed = try #require(sink)
        #expect(handed.digest.sha256 == SHA256.hex([UInt8]()))
        #expect(handed.digest.head.isEmpty)
        handed.discard()
        let (missing, none) = try await Self.fetch("/missing", into: store)
        #expect(missing.status == 404)
        #expect(none == nil)
        #expect(try Self.listed(store).isEmpty)
    }

    @Test func aFailedTransferDiscardsTheSink() async throws {
        let dir = TestDirectory()
        let store = try Self.store(dir)
        await #expect(throws: HTTPError.self) { _ = try await Self.fetch("/truncated", into: store) }
        #expect(try Self.listed(store).isEmpty)
    }
}
