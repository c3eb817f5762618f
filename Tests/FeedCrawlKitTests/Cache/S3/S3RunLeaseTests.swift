import Foundation
import Testing
@testable import FeedCrawlKit

/// The run lease against a real SeaweedFS: one holder at a time, renewals keep it, a lease left
/// unrenewed is taken over, a lost lease is noticed, release frees it.
@Suite("S3 run lease against SeaweedFS", .serialized, .seaweedFS)
struct S3RunLeaseTests {
    func withClient(_ body: (S3Client) async throws -> Void) async throws {
        let server = try #require(SeaweedServer.current)
        try await HTTPEngine.withEngine { engine in
            try await body(try S3Client(bucket: server.bucket, configuration: server.configuration(), engine: engine))
        }
    }

    func held(_ body: () async throws(S3RunLease.Failure) -> S3RunLease) async -> (holder: String, expiresIn: Int64)? {
        do {
            let lease = try await body()
            Issue.record("the lease was taken: \(lease.key)")
        } catch {
            if case .held(let holder, let expiresIn) = error { return (holder, expiresIn) }
            Issue.record("expected .held, got \(error)")
        }
        return nil
    }

    @Test func oneRunHoldsTheLeaseAndASecondIsToldWhoAndForHowLong() async throws {
        try await withClient { client in
            let first = try await S3RunLease.acquire(client: client, key: "one/.lock", holder: "host-a pid 1")
            #expect(first.isHeld)
            let refused = await held { () async throws(S3RunLease.Failure) in
                try await S3RunLease.acquire(client: client, key: "one/.lock", holder: "host-b pid 2")
            }
            #expect(refused?.holder == "host-a pid 1")
            #expect((55...60).contains(refused?.expiresIn ?? 0))
            #expect(S3RunLease.Failure.held(holder: "host-a pid 1", expiresIn: 60).description
                == "another run (host-a pid 1) is using this output (its lease expires in 60 s unless renewed)")
            await first.release()
            #expect(!first.isHeld)
            #expect(try await client.head(key: "one/.lock") == nil)
            let second = try await S3RunLease.acquire(client: client, key: "one/.lock", holder: "host-b pid 2")
            await second.release()
        }
    }

    @Test func aLeaseLeftUnrenewedIsTakenOverAndItsFormerHolderLearnsItLostIt() async throws {
        // Seconds, as Last-Modified counts them: expiry after 2 s without a renewal.
        let rule = ObjectLease(ttl: 2, renewInterval: 0, giveUpAfter: 1.5)
        try await withClient { client in
            let killed = try await S3RunLease.acquire(client: client, key: "two/.lock", holder: "killed", rule: rule)
            try await Task.sleep(for: .seconds(3.2))
            let next = try await S3RunLease.acquire(client: client, key: "two/.lock", holder: "next", rule: rule)
            #expect(next.isHeld)
            // The old holder's renewal is refused (the ETag changed): it knows it lost the lease.
            #expect(await killed.renewIfDue() == false)
            #expect(!killed.isHeld)
            #expect(await next.renewIfDue())
            // Its release does not delete the new holder's lease.
            await killed.release()
            #expect(try await client.head(key: "two/.lock") != nil)
            await next.release()
        }
    }

    @Test func renewalsKeepTheLeasePastItsTTL() async throws {
        let rule = ObjectLease(ttl: 3, renewInterval: 0.5, giveUpAfter: 2.5)
        try await withClient { client in
            let lease = try await S3RunLease.acquire(client: client, key: "three/.lock", holder: "live", rule: rule)
            let lost = Locked(false)
            lease.keepRenewing { lost.withLock { $0 = true } }
            try await Task.sleep(for: .seconds(4.5))
            let refused = await held { () async throws(S3RunLease.Failure) in
                try await S3RunLease.acquire(client: client, key: "three/.lock", holder: "other", rule: rule)
            }
            #expect(refused?.holder == "live")
            #expect(!lost.withLock { $0 })
            await lease.release()
            #expect(try await client.head(key: "three/.lock") == nil)
        }
    }

    @Test func aStoreThatRefusesTheCredentialsIsAStoreFailureNotAHeldLease() async throws {
        let server = try #require(SeaweedServer.current)
        try await HTTPEngine.withEngine { engine in
            let client = try S3Client(bucket: server.bucket, configuration: server.configuration(secret: "wrong-secret"),
                                      engine: engine)
            do {
                _ = try await S3RunLease.acquire(client: client, key: "four/.lock", holder: "x")
                Issue.record("the lease was taken with a wrong secret")
            } catch let error as S3RunLease.Failure {
                guard case .store(let s3) = error else { Issue.record("expected .store, got \(error)"); return }
                #expect(s3.code == .signatureDoesNotMatch)
                #expect(!error.description.contains("wrong-secret"))
            } catch {
                Issue.record("expected S3RunLease.Failure, got \(error)")
            }
        }
    }
}
