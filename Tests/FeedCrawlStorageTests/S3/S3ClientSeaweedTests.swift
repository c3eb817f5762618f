import Foundation
import Glibc
import Testing
import FeedCrawlSupport
import FeedCrawlHTTP
@testable import FeedCrawlStorage
import TestSupport

/// The S3 client (the store's requests) against a real SeaweedFS S3 gateway (one `weed server`
/// for the suite; see `SeaweedServer`): what the backend's conformance does not reach (a 20 MB
/// body from disk, conditional writes, listings a page at a time, reserved characters, curl's
/// own SigV4 reading back). Fails, naming `scripts/deps --tests`, when weed is not installed.
@Suite("S3 client against SeaweedFS", .serialized, .seaweedFS)
struct S3SeaweedTests {
    /// Runs `body` with a client of the suite's server and bucket, on a fresh engine.
    func withClient(secret: String? = nil, bucket: String? = nil,
                    _ body: (S3Client, SeaweedServer) async throws -> Void) async throws {
        let server = try #require(SeaweedServer.current)
        try await HTTPEngine.withEngine { engine in
            let client = try S3Client(bucket: bucket ?? server.bucket, configuration: server.configuration(secret: secret),
                                      engine: engine)
            try await body(client, server)
        }
    }

    /// The S3Error `body` throws (recording an issue when it throws something else or nothing).
    func s3Error(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async -> S3Error? {
        do {
            try await body()
            Issue.record("expected an S3Error, nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as S3Error {
            return error
        } catch {
            Issue.record("expected an S3Error, got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test func aFileIsStoredAndReadBackByteIdentical() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let payload = S3ClientFiles.pattern(150_000, seed: 11)
        S3ClientFiles.write(dir.file("in.jpg"), payload)
        try await withClient { (client: S3Client, server: SeaweedServer) async throws in
            let etag = try await client.put(key: "files/in.jpg", file: dir.file("in.jpg"), sha256: SHA256.hash(payload),
                                            contentType: "image/jpeg", cacheControl: "max-age=60")
            #expect(!etag.isEmpty)
            #expect(try await client.get(key: "files/in.jpg") == payload)
            let info = try #require(try await client.head(key: "files/in.jpg"))
            #expect(info.size == 150_000)
            #expect(info.etag == etag)
            #expect(info.contentType == "image/jpeg")
            #expect(info.lastModified != nil)
            #expect(try await client.get(key: "files/in.jpg", range: 100..<150_000) == Array(payload[100...]))
            let missing = await s3Error { _ = try await client.get(key: "files/none.jpg") }
            #expect(missing?.code == .noSuchKey)
            #expect(missing?.status == 404)
        }
    }

    @Test func aTwentyMegabyteFileRoundTripsFromDisk() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let size = 20 << 20
        var hasher = SHA256()
        let fd = open(dir.file("big.bin"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        // One pseudo-random MiB, each copy stamped with its number: cheap to make, no two alike.
        var chunk = S3ClientFiles.pattern(1 << 20, seed: 3)
        for block in 0..<(size >> 20) {
            chunk[0] = UInt8(block)
            hasher.update(chunk)
            #expect(chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == chunk.count)
        }
        close(fd)
        let digest = hasher.finalize()
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            try await client.put(key: "big/20m.bin", file: dir.file("big.bin"), sha256: digest)
            #expect(try await client.head(key: "big/20m.bin")?.size == Int64(size))
            let back = try await client.get(key: "big/20m.bin", range: nil, maxBytes: Int64(size))
            #expect(back.count == size)
            #expect(SHA256.hash(back) == digest)
            // GET into memory is bounded.
            let capped = await s3Error { _ = try await client.get(key: "big/20m.bin", maxBytes: 1 << 20) }
            #expect(capped?.transport == .bodyTooLarge(limit: 1 << 20))
        }
    }

    @Test func aWrongSHA256IsRefusedAndNothingIsStored() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        S3ClientFiles.write(dir.file("x.bin"), Array("the real bytes".utf8))
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            let error = await s3Error {
                try await client.put(key: "bad/x.bin", file: dir.file("x.bin"), sha256: SHA256.hash("other bytes"))
            }
            #expect(error?.status == 400)
            #expect([.badDigest, .xAmzContentChecksumMismatch, .invalidDigest].contains(error?.code))
            #expect(error?.isRetryable == false)
            #expect(try await client.head(key: "bad/x.bin") == nil)
            let short = await s3Error { try await client.put(key: "bad/y.bin", file: dir.file("x.bin"), sha256: [1, 2]) }
            #expect(short?.transport == .invalidRequest("the SHA-256 given has 2 bytes, not 32"))
        }
    }

    @Test func ifNoneMatchRefusesToReplaceAnExistingObject() async throws {
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            try await client.put(key: "cond/once", bytes: Array("first".utf8), condition: .ifNoneMatch)
            let error = await s3Error {
                try await client.put(key: "cond/once", bytes: Array("second".utf8), condition: .ifNoneMatch)
            }
            #expect(error?.code == .preconditionFailed)
            #expect(error?.status == 412)
            #expect(error?.description.hasPrefix("S3 PUT cond/once: PreconditionFailed (412): ") == true)
            #expect(try await client.get(key: "cond/once") == Array("first".utf8))
        }
    }

    @Test func ifMatchIsACompareAndSwap() async throws {
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            let first = try await client.put(key: "cas/obj", bytes: Array("v1".utf8))
            let second = try await client.put(key: "cas/obj", bytes: Array("v2".utf8), condition: .ifMatch(first))
            #expect(second != first)
            let stale = await s3Error { try await client.put(key: "cas/obj", bytes: Array("v3".utf8), condition: .ifMatch(first)) }
            #expect(stale?.code == .preconditionFailed)
            #expect(try await client.get(key: "cas/obj") == Array("v2".utf8))
            // An unquoted ETag is quoted for If-Match.
            let unquoted = String(second.dropFirst().dropLast())
            try await client.put(key: "cas/obj", bytes: Array("v4".utf8), condition: .ifMatch(unquoted))
            #expect(try await client.get(key: "cas/obj") == Array("v4".utf8))
        }
    }

    @Test func listingWalksEveryPageInKeyOrder() async throws {
        let keys = ["list/a.txt", "list/b&c d.txt", "list/c+é.txt", "list/sub/d.txt", "list/z.txt"]
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            var etags: [String: String] = [:]
            for (index, key) in keys.reversed().enumerated() {
                etags[key] = try await client.put(key: key, bytes: S3ClientFiles.pattern(10 + index, seed: UInt32(index + 1)))
            }
            try await client.put(key: "listed-not/x", bytes: [1])
            var pages: [[String]] = []
            var token: String?
            repeat {
                let page = try await client.list(prefix: "list/", continuation: token, maxKeys: 2)
                pages.append(page.objects.map(\.key))
                token = page.nextContinuationToken
            } while token != nil && pages.count < 10
            #expect(pages == [["list/a.txt", "list/b&c d.txt"], ["list/c+é.txt", "list/sub/d.txt"], ["list/z.txt"]])

            var walked: [S3ListedObject] = []
            let count = try await client.listAll(prefix: "list/", pageSize: 2) { walked.append($0) }
            #expect(count == 5)
            #expect(walked.map(\.key) == keys)
            for (object, key) in zip(walked, keys) {
                #expect(object.etag == etags[key])
                #expect(object.size == Int64(10 + keys.reversed().firstIndex(of: key)!))
                #expect(!object.lastModified.isEmpty)
            }
            #expect(try await client.list(prefix: "nothing-here/").objects.isEmpty)
        }
    }

    @Test func deletedObjectsAreGone() async throws {
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            try await client.put(key: "del/x", bytes: [1, 2, 3])
            #expect(try await client.head(key: "del/x") != nil)
            try await client.delete(key: "del/x")
            #expect(try await client.head(key: "del/x") == nil)
            let error = await s3Error { _ = try await client.get(key: "del/x") }
            #expect(error?.code == .noSuchKey)
            // Deleting again succeeds, as S3 does.
            try await client.delete(key: "del/x")
        }
    }

    @Test func aWrongSecretIsASignatureErrorThatNeverShowsASecret() async throws {
        let wrong = "wrong-secret-" + SeaweedServer.randomToken(20)
        try await withClient(secret: wrong) { (client: S3Client, server: SeaweedServer) async throws in
            let error = await s3Error { try await client.put(key: "sig/x", bytes: [1]) }
            #expect(error?.code == .signatureDoesNotMatch)
            #expect(error?.status == 403)
            #expect(error?.isRetryable == false)
            let listing = await s3Error { _ = try await client.list() }
            #expect(listing?.code == .signatureDoesNotMatch)
            for described in [error, listing].compactMap({ $0 }).flatMap({ [String(describing: $0), String(reflecting: $0)] }) {
                #expect(!described.contains(wrong))
                #expect(!described.contains(server.secretKey))
            }
            var dumped = ""
            dump(client.configuration, to: &dumped)
            #expect(!dumped.contains(wrong))
        }
        let server = try #require(SeaweedServer.current)
        try await HTTPEngine.withEngine { engine in
            let unknown = try S3Configuration(
                credentials: S3Credentials(accessKeyID: "AKUNKNOWN", secretAccessKey: server.secretKey),
                endpoint: server.endpoint, policy: RequestPolicy(retry: RetryPolicy(retries: 0)))
            let client = try S3Client(bucket: server.bucket, configuration: unknown, engine: engine)
            let error = await s3Error { _ = try await client.get(key: "sig/x") }
            #expect(error?.code == .invalidAccessKeyId)
            #expect(error.map { !String(describing: $0).contains(server.secretKey) } == true)
        }
    }

    @Test func aMissingBucketIsNoSuchBucket() async throws {
        try await withClient(bucket: "fc-no-such-bucket") { (client: S3Client, _: SeaweedServer) async throws in
            let get = await s3Error { _ = try await client.get(key: "cache/ab/x.jpg") }
            #expect(get?.code == .noSuchBucket)
            #expect(get?.status == 404)
            #expect(get?.description.hasPrefix("S3 GET cache/ab/x.jpg: NoSuchBucket (404): ") == true)
            let list = await s3Error { _ = try await client.list() }
            #expect(list?.code == .noSuchBucket)
            // AWS answers a PUT into a missing bucket with NoSuchBucket; SeaweedFS (4.48) with
            // AccessDenied for an identity without Admin (and makes the bucket for an admin).
            let put = await s3Error { try await client.put(key: "cache/ab/x.jpg", bytes: [1]) }
            #expect([.noSuchBucket, .accessDenied].contains(put?.code))
            #expect(put?.isRetryable == false)
            // HEAD answers have no body to tell a missing bucket from a missing key: both are nil.
            let head = try await client.head(key: "cache/ab/x.jpg")
            #expect(head == nil)
        }
    }

    @Test func keysWithReservedCharactersRoundTrip() async throws {
        let keys = ["enc/a b.jpg", "enc/x&y=z?.jpg", "enc/é/ü~_.-+.jpg", "enc/100%.jpg", "enc/(1) [2] {3}.jpg"]
        try await withClient { (client: S3Client, _: SeaweedServer) async throws in
            for (index, key) in keys.enumerated() {
                try await client.put(key: key, bytes: [UInt8(index)])
                #expect(try await client.get(key: key) == [UInt8(index)], "\(key)")
            }
            var listed: [String] = []
            try await client.listAll(prefix: "enc/") { listed.append($0.key) }
            #expect(listed == keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
    }

    /// curl's own SigV4 (software nobody here wrote) reads back what the client stored.
    @Test func curlReadsBackWhatTheClientStored() async throws {
        let curl = "/usr/bin/curl"
        try #require(access(curl, X_OK) == 0, "curl is not installed at \(curl)")
        let dir = try TempFolder()
        defer { dir.remove() }
        let payload = S3ClientFiles.pattern(70_000, seed: 5)
        S3ClientFiles.write(dir.file("in.bin"), payload)
        try await withClient { (client: S3Client, server: SeaweedServer) async throws in
            try await client.put(key: "curl/a b+c.bin", file: dir.file("in.bin"), sha256: SHA256.hash(payload))
            let process = try ChildProcess(executable: curl, arguments: [
                "-sS", "--fail", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "\(server.accessKey):\(server.secretKey)",
                "-o", dir.file("curl.bin"), "\(server.endpoint)/\(server.bucket)/curl/a%20b%2Bc.bin",
            ], environment: ChildProcess.environment([:]))
            let exit = await process.exit(timeout: 60)
            #expect(exit.status == 0 && !exit.signaled, "\(String(decoding: exit.stderr, as: UTF8.self))")
            #expect(S3ClientFiles.read(dir.file("curl.bin")) == payload)
        }
    }
}

/// Files and bytes for the client's tests.
enum S3ClientFiles {
    static func read(_ path: String) -> [UInt8]? { try? FileIO.read(path) }

    static func write(_ path: String, _ bytes: [UInt8]) {
        try? AtomicFile.write(bytes, to: path)
    }

    /// Deterministic pseudo-random bytes.
    static func pattern(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
        var x = seed &* 2_654_435_761 | 1
        return (0..<count).map { _ in
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            return UInt8(truncatingIfNeeded: x)
        }
    }
}
