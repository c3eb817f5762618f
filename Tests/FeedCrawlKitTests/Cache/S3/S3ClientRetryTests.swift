import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
@testable import FeedCrawlHTTP
@testable import FeedCrawlStorage

/// The S3 client against the loopback test server, for answers SeaweedFS does not give on demand.
@Suite("S3 client retries")
struct S3ClientRetryTests {
    static let slowDown = ServerResponse(
        status: 503, headers: [("Content-Type", "application/xml"), ("Retry-After", "0")],
        body: .bytes(Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message>\
            <RequestId>SD1</RequestId></Error>
            """.utf8)))

    static func configuration(_ server: HTTPServer, retries: Int) throws -> S3Configuration {
        try S3Configuration(
            credentials: S3Credentials(accessKeyID: "AKLOCAL", secretAccessKey: "local-secret-value"),
            endpoint: server.baseURL, policy: RequestPolicy(retry: RetryPolicy(retries: retries, baseDelay: 0.01, maxDelay: 0.05)))
    }

    @Test func slowDownIsARetryableErrorNamingItsCode() async throws {
        try await withHTTPServer(handler: { _ in Self.slowDown }) { server in
            try await HTTPEngine.withEngine { engine in
                let client = try S3Client(bucket: "bkt", configuration: Self.configuration(server, retries: 2), engine: engine)
                do {
                    try await client.put(key: "cache/ab/x.jpg", bytes: [1, 2, 3])
                    Issue.record("the PUT succeeded")
                } catch let error as S3Error {
                    #expect(error.code == .slowDown)
                    #expect(error.status == 503)
                    #expect(error.isRetryable)
                    #expect(error.attempts == 3)
                    #expect(error.description == "S3 PUT cache/ab/x.jpg: SlowDown (503): Please reduce your request rate. "
                        + "[request SD1] (after 3 attempts)")
                    #expect(!error.description.contains("local-secret-value"))
                }
                #expect(server.requestCount == 3)
            }
        }
    }

    @Test func aStoreThatRecoversAfterTwoSlowDownsGetsTheObject() async throws {
        let stored = Locked<[(path: String, body: [UInt8], checksum: String?, payloadHash: String?)]>([])
        let answered = Locked(0)
        try await withHTTPServer(handler: { req in
            let n = answered.withLock { count -> Int in
                count += 1
                return count
            }
            if n <= 2 { return Self.slowDown }
            stored.withLock {
                $0.append((req.path, req.body, req.header("x-amz-checksum-sha256"), req.header("x-amz-content-sha256")))
            }
            return ServerResponse(status: 200, headers: [("ETag", "\"etag-3\"")])
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let client = try S3Client(bucket: "bkt", configuration: Self.configuration(server, retries: 3), engine: engine)
                let etag = try await client.put(key: "cache/a b.jpg", bytes: Array("hello".utf8), contentType: "image/jpeg")
                #expect(etag == "\"etag-3\"")
            }
        }
        let requests = stored.withLock { $0 }
        try #require(requests.count == 1)
        #expect(requests[0].path == "/bkt/cache/a b.jpg")
        #expect(requests[0].body == Array("hello".utf8))
        #expect(requests[0].checksum == "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=")
        #expect(requests[0].payloadHash == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    }

    @Test func aRetryAfterLongerThanThePolicyAllowsEndsAtOnce() async throws {
        var answer = Self.slowDown
        answer.headers = [("Retry-After", "3600")]
        try await withHTTPServer(handler: { [answer] _ in answer }) { server in
            try await HTTPEngine.withEngine { engine in
                var configuration = try Self.configuration(server, retries: 3)
                configuration.policy.retry.maxRetryWait = 10
                let client = try S3Client(bucket: "bkt", configuration: configuration, engine: engine)
                do {
                    _ = try await client.get(key: "k")
                    Issue.record("the GET succeeded")
                } catch let error as S3Error {
                    #expect(error.attempts == 1)
                    #expect(error.gaveUp?.contains("Retry-After: 3600") == true)
                }
                #expect(server.requestCount == 1)
            }
        }
    }

    @Test func notFoundIsNotRetried() async throws {
        try await withHTTPServer(handler: { _ in
            ServerResponse(status: 404, body: .bytes(Array("<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>".utf8)))
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let client = try S3Client(bucket: "bkt", configuration: Self.configuration(server, retries: 3), engine: engine)
                await #expect(throws: S3Error(operation: "GET", key: "k", status: 404, code: .noSuchKey, message: "gone")) {
                    _ = try await client.get(key: "k")
                }
                #expect(try await client.head(key: "k") == nil)
                #expect(server.requestCount == 2)
            }
        }
    }

    /// SigV4 as AWS checks it: every request, with a body or not, carries a signed
    /// `x-amz-content-sha256` (moto's server with authentication on refuses reads without it).
    @Test func everyRequestCarriesASignedPayloadHash() async throws {
        let seen = Locked<[(method: String, hash: String?, authorization: String?)]>([])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0.append((req.method, req.header("x-amz-content-sha256"), req.header("authorization"))) }
            if req.method == "GET" {  // an object or a listing: this body serves both
                return ServerResponse(status: 200, body: .bytes(Array(
                    "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8)))
            }
            return ServerResponse(status: 200, headers: [("ETag", "\"e\"")])
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let client = try S3Client(bucket: "bkt", configuration: Self.configuration(server, retries: 0), engine: engine)
                try await client.put(key: "k", bytes: Array("hello".utf8))
                _ = try await client.get(key: "k")
                _ = try await client.head(key: "k")
                _ = try await client.list(prefix: "k")
                try await client.delete(key: "k")
            }
        }
        let requests = seen.withLock { $0 }
        #expect(requests.map(\.method) == ["PUT", "GET", "HEAD", "GET", "DELETE"])
        for (index, request) in requests.enumerated() {
            let expected = index == 0 ? "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
                : S3Client.emptyPayloadHash
            #expect(request.hash == expected, "\(request.method)")
            #expect(request.authorization?.contains("x-amz-content-sha256") == true, "\(request.authorization ?? "")")
        }
    }

    /// `--retries 0` reaches storage: one attempt, whatever the store answers.
    @Test func noRetriesMeansOneAttempt() async throws {
        try await withHTTPServer(handler: { _ in Self.slowDown }) { server in
            try await HTTPEngine.withEngine { engine in
                let client = try S3Client(bucket: "bkt", configuration: Self.configuration(server, retries: 0), engine: engine)
                await #expect(throws: S3Error.self) { _ = try await client.get(key: "k") }
                #expect(server.requestCount == 1)
            }
        }
    }

    /// Paced uploads pass the store's gate: a `SlowDown` halves how many run at once and spaces
    /// them, and each pushed-back upload is retried by the client, so every one is stored; a PUT
    /// that is not paced does not touch the gate.
    @Test func pacedUploadsBackOffOnSlowDownAndAllGetStored() async throws {
        let answered = Locked([String: Int]())  // per kind of PUT: plain, paced
        let stored = Locked(Set<String>())
        try await withHTTPServer(handler: { req in
            let kind = req.path.hasSuffix("/plain") ? "plain" : "paced"
            let n = answered.withLock { counts -> Int in
                counts[kind, default: 0] += 1
                return counts[kind]!
            }
            if n <= 3 { return Self.slowDown }
            stored.withLock { _ = $0.insert(req.path) }
            return ServerResponse(status: 200, headers: [("ETag", "\"e\"")])
        }) { server in
            try await HTTPEngine.withEngine { engine in
                let client = try S3Client(bucket: "bkt", configuration: Self.configuration(server, retries: 3), engine: engine)
                try await client.put(key: "plain", bytes: [1])  // pushed back 3 times, not paced
                #expect(client.uploads.state.state == .init(concurrency: S3CacheStore.uploadsAtOnce, interval: 0))
                let file = "/tmp/feedcrawl-paced-\(getpid())"
                try AtomicFile.write(Array("body".utf8), to: file)
                defer { unlink(file) }
                let sha256 = SHA256.hash(Array("body".utf8))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<20 {
                        group.addTask { try await client.put(key: "k\(index)", file: file, sha256: sha256, paced: true) }
                    }
                    try await group.waitForAll()
                }
                let state = client.uploads.state.state
                #expect(state.concurrency < S3CacheStore.uploadsAtOnce)
                #expect(state.interval > 0)
                #expect(client.uploads.waiting == 0)
            }
        }
        #expect(answered.withLock { $0 } == ["plain": 4, "paced": 23])  // 3 pushed back each
        #expect(stored.withLock { $0.count } == 21)
    }
}
