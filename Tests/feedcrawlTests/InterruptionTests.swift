import FeedCrawlKit
import Foundation
import Testing

/// Stopping a crawl from outside: SIGTERM, SIGINT, a second signal, --deadline.
@Suite("feedcrawl interruption")
struct InterruptionTests {
    /// Starts a slow crawl and waits until images are being downloaded.
    func startSlowCrawl(_ feed: SlowFeed, out: OutputFolder, extra: [String] = []) async throws -> BinaryProcess {
        let process = try BinaryProcess(feed.arguments(out: out.path) + extra, environment: feed.environment)
        #expect(await waitUntil { feed.images >= 4 }, "no image requests arrived")
        return process
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func aSignalStopsTheRunAndTheManifestIsWritten(signal: Int32, status: Int32) async throws {
        try await BinaryTestGate.run {
            // Each image takes 4 s: a full run would take half a minute.
            let feed = try SlowFeed(bytesPerSecond: 300)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let process = try await startSlowCrawl(feed, out: out)
            let sent = Date()
            process.send(signal)
            let exit = await process.exit()
            #expect(!exit.signaled)
            #expect(exit.status == status, "stderr: \(exit.stderr)")
            #expect(Date().timeIntervalSince(sent) < 15)
            #expect(exit.stderr.contains("cancelled"))
            let manifest = try out.manifest()
            let withImage = manifest.items.filter { $0.imageURL != nil }
            #expect(!withImage.isEmpty)
            #expect(withImage.contains { $0.status == .cancelled })
            #expect(withImage.allSatisfy { $0.status == .cancelled || $0.status == .downloaded })
            #expect(out.partFiles().isEmpty)
            #expect(!out.journalExists)
            #expect(out.cacheFiles() == Set(manifest.items.compactMap(\.file)))
        }
    }

    @Test func aSecondSignalExitsAtOnceWithoutCorruptingAnything() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            // Hold the run at the start of its final write, where a clean stop would write the manifest.
            let process = try BinaryProcess(
                feed.arguments(out: out.path),
                environment: feed.environment.merging(["FEEDCRAWL_TEST_PAUSE_AT": "outcomes-journaled"]) { $1 })
            #expect(await waitUntil { process.stderrSoFar.contains("paused at outcomes-journaled") })
            process.send(SIGTERM)
            #expect(await waitUntil { process.stderrSoFar.contains("SIGTERM received") })
            process.send(SIGINT)
            let exit = await process.exit(timeout: 10)
            #expect(!exit.signaled)
            #expect(exit.status == 143, "stderr: \(exit.stderr)")
            #expect(exit.stderr.contains("second signal"))
            // No manifest was written, but the journal holds every outcome and parses.
            #expect(!out.manifestExists)
            #expect(out.journalExists)
            let journaled = try Journal.read(path: out.path + "/manifest.journal")
            #expect(journaled.skippedLines == 0)
            #expect(journaled.items.count == 80)

            // The next run folds it in and finds everything fresh.
            feed.slow = false
            let imagesBefore = feed.images
            let rerun = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(feed.images == imagesBefore)
            let manifest = try out.manifest()
            #expect(manifest.items.filter { $0.imageURL != nil }.allSatisfy { $0.status == .fresh })
        }
    }

    @Test func theDeadlineStopsTheRunWithStatus1() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(bytesPerSecond: 200)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let started = Date()
            let result = try await BinaryProcess.run(
                feed.arguments(out: out.path) + ["--deadline", "700ms"], environment: feed.environment)
            let elapsed = Date().timeIntervalSince(started)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(elapsed >= 0.7)
            #expect(elapsed < 20)  // a full run would take about a minute
            #expect(result.stderr.contains("deadline"))
            #expect(result.stdout.isEmpty)
            let manifest = try out.manifest()
            #expect(manifest.run?.deadlineReached == true)
            let cancelled = manifest.items.filter { $0.status == .cancelled }
            #expect(!cancelled.isEmpty)
            #expect(cancelled.allSatisfy { $0.error == "cancelled: deadline reached" })
            #expect(out.partFiles().isEmpty)
        }
    }

    @Test func aSecondRunWhileTheLockIsHeldExits75AndChangesNothing() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let first = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            let before = out.snapshot()
            let manifestBefore = try Data(contentsOf: URL(fileURLWithPath: out.path + "/manifest.json"))

            // Another process (this one) holds the lock, as a running crawl would.
            let lock = try RunLock(outDirectory: out.path)
            let imagesBefore = feed.images
            let second = try await BinaryProcess.run(feed.arguments(out: out.path) + ["--ttl", "0s"], environment: feed.environment)
            lock.release()
            #expect(second.status == 75)
            #expect(second.stderr.contains("held by another feedcrawl run"))
            #expect(out.snapshot() == before)
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.path + "/manifest.json")) == manifestBefore)
            #expect(feed.images == imagesBefore)
        }
    }

    @Test func aCrawlStartedWhileAnotherRunsExits75() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            // The first crawl holds the lock, parked at the start of its final write.
            let running = try BinaryProcess(
                feed.arguments(out: out.path),
                environment: feed.environment.merging(["FEEDCRAWL_TEST_PAUSE_AT": "outcomes-journaled"]) { $1 })
            #expect(await waitUntil { running.stderrSoFar.contains("paused at") })
            let second = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(second.status == 75)
            #expect(second.stderr.contains("held by another feedcrawl run; nothing was changed"))
            running.send(SIGTERM)
            #expect(await waitUntil { running.stderrSoFar.contains("SIGTERM received") })
            running.send(SIGTERM)
            #expect(await running.exit().status == 143)
        }
    }
}
