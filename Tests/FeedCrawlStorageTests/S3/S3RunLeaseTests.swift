import Foundation
import Testing
import FeedCrawlSupport
import FeedCrawlHTTP
@testable import FeedCrawlStorage

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
            lease.keepRenewing { _ in lost.withLock { $0 = true } }
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

    @Test func seaweedFSHonoursConditionalWritesSoTheLeaseObjectIsUsed() async throws {
        try await withClient { client in
            #expect(try await S3RunLease.honoursConditionalWrites(client: client, probeKey: "probe/.lock-probe-x"))
            #expect(try await client.head(key: "probe/.lock-probe-x") == nil)
            let lease = try await S3RunLease.acquire(client: client, key: "probe/.lock", holder: "h")
            #expect(lease.kind == .conditional)
            await lease.release()
        }
    }

    /// The lock for stores that ignore conditional writes, run here on SeaweedFS (it needs only
    /// read-after-write consistency): one holder, the other told who; release frees it.
    @Test func listedLocksLetOneRunHoldTheLock() async throws {
        try await withClient { client in
            let first = try await S3RunLease.acquire(client: client, key: "five/.lock", holder: "host-a pid 1", kind: .listed)
            #expect(first.kind == .listed)
            #expect(first.key.hasPrefix("five/locks/"))
            let refused = await held { () async throws(S3RunLease.Failure) in
                try await S3RunLease.acquire(client: client, key: "five/.lock", holder: "host-b pid 2", kind: .listed)
            }
            #expect(refused?.holder == "host-a pid 1")
            // The refused run left no lock object of its own.
            #expect(try await client.list(prefix: "five/locks/").objects.map(\.key) == [first.key])
            await first.release()
            #expect(try await client.list(prefix: "five/locks/").objects.isEmpty)
            let second = try await S3RunLease.acquire(client: client, key: "five/.lock", holder: "host-b pid 2", kind: .listed)
            await second.release()
        }
    }

    @Test func twoRunsTakingListedLocksAtOnceNeverBothHoldIt() async throws {
        try await withClient { client in
            for round in 0..<3 {
                let key = "six-\(round)/.lock"
                async let a = try? S3RunLease.acquire(client: client, key: key, holder: "a", kind: .listed)
                async let b = try? S3RunLease.acquire(client: client, key: key, holder: "b", kind: .listed)
                let (first, second) = await (a, b)
                #expect(first == nil || second == nil, "both runs took the lock")
                await first?.release()
                await second?.release()
            }
        }
    }

    @Test func aListedLockLeftUnrenewedIsRemovedAndItsFormerHolderLearnsItLostIt() async throws {
        let rule = ObjectLease(ttl: 2, renewInterval: 0, giveUpAfter: 1.5)
        try await withClient { client in
            let killed = try await S3RunLease.acquire(client: client, key: "seven/.lock", holder: "killed", rule: rule, kind: .listed)
            try await Task.sleep(for: .seconds(3.2))
            let messages = Locked<[String]>([])
            let next = try await S3RunLease.acquire(
                client: client, key: "seven/.lock", holder: "next", rule: rule, kind: .listed,
                log: { message, _ in messages.withLock { $0.append(message) } })
            #expect(messages.withLock { $0 }.contains { $0.contains("stopped renewing") && $0.contains("killed") })
            #expect(await killed.renewIfDue() == false)
            #expect(killed.lost == .takenOver)
            #expect(await next.renewIfDue())
            await next.release()
            #expect(try await client.list(prefix: "seven/locks/").objects.isEmpty)
        }
    }
}
