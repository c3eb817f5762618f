import Foundation
import Glibc
import Testing
import FeedCrawlHTTP
import FeedCrawlSupport
@testable import FeedCrawlStorage

/// The S3 store against a loopback server giving the answers no real store gives on demand: what
/// each failure means (`BackendError.Kind`), one attempt per call, and the staged-body contract.
@Suite("S3 backend answers")
struct S3BackendAnswerTests {
    static let secret = "loopback-secret-value"

    static func backend(_ server: LoopbackStore, prefix: String = "feeds", spoolRoot: String? = nil) throws -> S3Backend {
        try backend(endpoint: server.endpoint, prefix: prefix, spoolRoot: spoolRoot)
    }

    static func backend(endpoint: String, prefix: String = "feeds", spoolRoot: String? = nil) throws -> S3Backend {
        let configuration = try S3Configuration(
            credentials: S3Credentials(accessKeyID: "AKLOOPBACK", secretAccessKey: secret), endpoint: endpoint,
            policy: RequestPolicy(retry: RetryPolicy(retries: 5, baseDelay: 0.01, maxDelay: 0.05), connectTimeoutMs: 2000,
                                  lowSpeedTimeSeconds: 3))
        return try S3Backend(location: S3Location(bucket: "bkt", prefix: prefix), configuration: configuration,
                             network: HTTPEngine.Configuration(), spoolRoot: spoolRoot)
    }

    static let manifest = FileHandle(.state, "manifest.json")!

    /// Runs `body` on a backend of a server answering every request with `reply`, and returns
    /// the error it threw (nil when none).
    static func failure(
        _ reply: LoopbackStore.Reply, _ body: (S3Backend) async throws(BackendError) -> Void
    ) async throws -> (BackendError?, Int) {
        let server = try LoopbackStore { _ in reply }
        defer { server.stop() }
        let backend = try backend(server)
        do throws(BackendError) {
            try await body(backend)
            return (nil, server.requests.count)
        } catch {
            return (error, server.requests.count)
        }
    }

    @Test func slowDownIsPushBackWithItsRetryAfterAfterOneAttempt() async throws {
        let (error, requests) = try await Self.failure(
            LoopbackStore.error(503, "SlowDown", "Please reduce your request rate.", headers: [("Retry-After", "7")])
        ) { backend throws(BackendError) in
            try await backend.save(Self.manifest, bytes: [1, 2, 3], options: SaveOptions())
        }
        let failure = try #require(error)
        #expect(failure.kind == .pushedBack)
        #expect(failure.retryAfter == 7)
        #expect(failure.isTransient)
        #expect(failure.reason == "SlowDown (503): Please reduce your request rate. [request LB1]")
        #expect(failure.description == "cannot save s3://bkt/feeds/manifest.json: SlowDown (503): Please reduce your request rate. [request LB1]")
        #expect(requests == 1, "one attempt per call, not the policy's 6")
    }

    @Test(arguments: [
        (LoopbackStore.error(429, "TooManyRequests", "slow down"), BackendError.Kind.pushedBack),
        (LoopbackStore.Reply.answer(503, [], []), .pushedBack),
        (LoopbackStore.error(400, "Throttling", "Rate exceeded"), .pushedBack),
        (LoopbackStore.error(500, "InternalError", "We encountered an internal error."), .transient),
        (LoopbackStore.error(502, "BadGateway", "upstream"), .transient),
        (LoopbackStore.error(400, "RequestTimeout", "Your socket connection to the server was not read from"), .transient),
        (LoopbackStore.error(403, "AccessDenied", "Access Denied"), .refused),
        (LoopbackStore.error(403, "SignatureDoesNotMatch", "The request signature we calculated does not match"), .refused),
        (LoopbackStore.error(404, "NoSuchBucket", "The specified bucket does not exist"), .refused),
        (LoopbackStore.error(400, "BadDigest", "The sha256 you specified did not match"), .refused),
        (LoopbackStore.error(404, "NoSuchKey", "The specified key does not exist."), .notFound),
        (LoopbackStore.Reply.cutShort(declared: 1000, body: [1, 2, 3]), .transient),
    ])
    func everyAnswerHasItsKind(reply: LoopbackStore.Reply, kind: BackendError.Kind) async throws {
        let (error, requests) = try await Self.failure(reply) { backend throws(BackendError) in
            _ = try await backend.load(Self.manifest, range: nil, maxBytes: 1 << 20)
        }
        #expect(error?.kind == kind, "\(String(describing: error))")
        #expect(requests == 1)
        #expect(error?.description.contains(Self.secret) == false)
    }

    @Test func aRangeTheObjectDoesNotCoverIsRefused() async throws {
        let (error, _) = try await Self.failure(LoopbackStore.error(416, "InvalidRange", "The requested range is not satisfiable")) {
            backend throws(BackendError) in
            _ = try await backend.load(Self.manifest, range: 10..<20, maxBytes: 100)
        }
        #expect(error?.kind == .refused)
        #expect(error?.reason.hasPrefix("InvalidRange (416)") == true, "\(String(describing: error))")
        // A store that sends fewer bytes than the range asks for (it clamps the end).
        let short = try await Self.failure(.answer(206, [("Content-Range", "bytes 10-14/15")], [1, 2, 3, 4, 5])) {
            backend throws(BackendError) in
            _ = try await backend.load(Self.manifest, range: 10..<20, maxBytes: 100)
        }
        #expect(short.0?.kind == .refused)
        // More bytes than maxBytes: refused, never cut.
        let large = try await Self.failure(.answer(200, [], [UInt8](repeating: 1, count: 5000))) { backend throws(BackendError) in
            _ = try await backend.load(Self.manifest, range: nil, maxBytes: 1000)
        }
        #expect(large.0?.kind == .refused)
    }

    @Test func aMissingObjectStatsAsNilAndRemovesWithoutError() async throws {
        let server = try LoopbackStore { request in
            request.method == "DELETE" ? LoopbackStore.error(404, "NoSuchKey", "gone") : .answer(404, [], [])
        }
        defer { server.stop() }
        let backend = try Self.backend(server)
        #expect(try await backend.stat(Self.manifest) == nil)
        try await backend.remove(Self.manifest)
        #expect(server.requests.map(\.method) == ["HEAD", "DELETE"], "remove makes no HEAD first")
    }

    @Test func noServerIsTransientAndAHangingOneIsCancelled() async throws {
        // A port nothing listens on: bind one, close it.
        let closed = try LoopbackStore { _ in .hang }
        let endpoint = closed.endpoint
        closed.stop()
        let backend = try Self.backend(endpoint: endpoint)
        do {
            _ = try await backend.stat(Self.manifest)
            Issue.record("a stat with no server succeeded")
        } catch {
            #expect(error.kind == .transient, "\(error)")
        }
        let hanging = try LoopbackStore { _ in .hang }
        defer { hanging.stop() }
        let quiet = try Self.backend(hanging)
        let task = Task { () throws(BackendError) -> [UInt8] in
            try await quiet.load(Self.manifest, range: nil, maxBytes: 100)
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else {
            Issue.record("a cancelled load returned")
            return
        }
        #expect((error as? BackendError)?.kind == .cancelled, "\(error)")
    }

    /// A store that accepts the connection and never answers is a timed-out attempt (the
    /// policy's low-speed limit, 3 s here), `.transient`: not a lost lock, not a hang.
    @Test func aStoreThatNeverAnswersTimesOut() async throws {
        let began = ContinuousClock.now
        let (error, requests) = try await Self.failure(.hang) { backend throws(BackendError) in
            _ = try await backend.stat(Self.manifest)
        }
        #expect(error?.kind == .transient, "\(String(describing: error))")
        #expect(error?.reason.hasPrefix("timed out") == true, "\(String(describing: error))")
        #expect(requests == 1)
        // 3 s alone; far more while the whole suite shares 2 cores (30 s seen), never unbounded.
        #expect(ContinuousClock.now - began < .seconds(120))
    }

    /// A staged body is consumed by a successful save or a permanent failure; a push-back leaves
    /// it whole for the retrying wrapper to send again.
    @Test func aStagedBodySurvivesAPushBackAndIsSentWholeAgain() async throws {
        let answered = Locked(0)
        let server = try LoopbackStore { request in
            let n = answered.withLock { count -> Int in
                count += 1
                return count
            }
            if n == 1 { return LoopbackStore.error(503, "SlowDown", "Please reduce your request rate.", headers: [("Retry-After", "1")]) }
            return .answer(200, [("ETag", "\"e\(n)\"")], [])
        }
        defer { server.stop() }
        let spool = try TestProcess.makeDirectory("feedcrawl-spool-test")
        defer { TestProcess.removeTree(spool) }
        let backend = try Self.backend(server, spoolRoot: spool)
        let key = SHA256.hex("staged")
        let image = try #require(FileHandle(.image, key + ".png"))
        let staged = try backend.stage(try #require(FileHandle(.image, key + ".jpg")))
        let body = (0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try body.withUnsafeBytes { try staged.write($0) }
        let file = try #require((staged as? SpoolFile)?.path)
        #expect(file.hasPrefix(backend.spool + "/") && file.hasSuffix(".part"))
        do {
            try await backend.save(image, staged: staged, options: SaveOptions())
            Issue.record("the first save succeeded")
        } catch {
            #expect(error.kind == .pushedBack)
            #expect(error.retryAfter == 1)
        }
        #expect(access(file, F_OK) == 0, "the staged body is still there")
        #expect(staged.size == 150_000)
        try await backend.save(image, staged: staged, options: SaveOptions())
        #expect(access(file, F_OK) != 0, "a saved body's spool file is removed")
        let puts = server.requests
        try #require(puts.count == 2)
        let sha = SHA256.hash(body)
        for put in puts {
            #expect(put.method == "PUT")
            #expect(put.path == "/bkt/feeds/cache/\(key.prefix(2))/\(key).png")
            #expect(put.body == body)
            #expect(put.header("content-length") == "150000")
            #expect(put.header("content-type") == "image/png")
            #expect(put.header("cache-control") == "public, max-age=86400")
            #expect(put.header("x-amz-checksum-sha256") == Data(sha).base64EncodedString())
            #expect(put.header("x-amz-content-sha256") == sha.hexString)
            #expect(put.header("authorization")?.contains("AKLOOPBACK") == true)
        }
        // Consumed: a third save is refused, and a discard now is harmless.
        do {
            try await backend.save(image, staged: staged, options: SaveOptions())
            Issue.record("a consumed body was saved again")
        } catch {
            #expect(error.kind == .refused)
        }
        staged.discard()
        #expect(server.requests.count == 2)
    }

    @Test func aPermanentFailureConsumesTheStagedBody() async throws {
        let server = try LoopbackStore { _ in LoopbackStore.error(403, "AccessDenied", "Access Denied") }
        defer { server.stop() }
        let backend = try Self.backend(server)
        let staged = try backend.stage(Self.manifest)
        try [1, 2, 3].withUnsafeBytes { try staged.write($0) }
        let file = try #require((staged as? SpoolFile)?.path)
        do {
            try await backend.save(Self.manifest, staged: staged, options: SaveOptions(sha256: SHA256.hash([1, 2, 3])))
            Issue.record("a refused save succeeded")
        } catch {
            #expect(error.kind == .refused)
            #expect(error.reason == "AccessDenied (403): Access Denied [request LB1]")
        }
        #expect(access(file, F_OK) != 0)
    }

    @Test func theSpoolFolderIsThisProcesssOwnAndGoesWithTheStore() async throws {
        let root = try TestProcess.makeDirectory("feedcrawl-spool-root")
        defer { TestProcess.removeTree(root) }
        // A dead process's folder (a pid no process has) and a live one's (this process's parent).
        var dead: pid_t = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let stale = root + "/feedcrawl-spool-\(dead)-0123456789ab"
        let live = root + "/feedcrawl-spool-\(getppid())-0123456789ab"
        for folder in [stale, live] {
            mkdir(folder, 0o700)
            close(open(folder + "/leftover.part", O_WRONLY | O_CREAT, 0o600))
        }
        var spool = ""
        do {
            let backend = try Self.backend(endpoint: "http://127.0.0.1:9", spoolRoot: root)
            spool = backend.spool
            #expect(spool.hasPrefix(root + "/feedcrawl-spool-\(getpid())-"))
            var info = stat()
            #expect(stat(spool, &info) == 0 && info.st_mode & 0o777 == 0o700)
            #expect(access(stale, F_OK) != 0, "a dead process's spool folder is removed")
            #expect(access(live, F_OK) == 0, "a live process's spool folder stays")
            let staged = try backend.stage(Self.manifest)
            try [1].withUnsafeBytes { try staged.write($0) }
            #expect(backend.properties == BackendProperties(connections: 16, maxWaitingStaged: 64, canFillUp: false))
            #expect(backend.location(Self.manifest) == "s3://bkt/feeds/manifest.json")
        }
        #expect(access(spool, F_OK) != 0, "the spool folder goes with its store")
    }

    @Test func theFactoryAndTheOutParser() throws {
        #expect(try Backends.objectStoreLocation("OUT") == nil)
        #expect(try Backends.objectStoreLocation("s3://mirror/feeds/") == S3Location(bucket: "mirror", prefix: "feeds"))
        #expect(throws: S3LocationError.self) { try Backends.objectStoreLocation("s3://UPPER/feeds") }
        let configuration = try S3Configuration(
            credentials: S3Credentials(accessKeyID: "AK", secretAccessKey: Self.secret), endpoint: "http://127.0.0.1:9")
        let backend = try Backends.s3(
            location: S3Location(bucket: "mirror", prefix: "feeds"), configuration: configuration,
            network: HTTPEngine.Configuration())
        #expect(backend.location(Self.manifest) == "s3://mirror/feeds/manifest.json")
        #expect(backend.properties.connections == 16)
    }

    @Test func aStoreThatIgnoresRangeIsCutHere() async throws {
        let server = try LoopbackStore { _ in .answer(200, [], Array(0..<100)) }
        defer { server.stop() }
        let backend = try Self.backend(server)
        #expect(try await backend.load(Self.manifest, range: 10..<20, maxBytes: 10) == Array(10..<20))
        #expect(server.requests.first?.header("range") == "bytes=10-19")
    }

    @Test func listingTimesAreRead() {
        #expect(S3Backend.isoSeconds("2026-12-02T14:45:51.000Z") == 1_796_222_751)
        #expect(S3Backend.isoSeconds("2026-12-02T14:45:51Z") == 1_796_222_751)
        #expect(S3Backend.isoSeconds("2026-12-02T14:45:51.250Z") == 1_796_222_751.25)
        #expect(S3Backend.isoSeconds("yesterday") == nil)
    }
}
