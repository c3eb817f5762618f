import DemoFeed
import FeedCrawlKit
import Foundation
import Testing
import FeedCrawlSupport

/// Stopping a crawl from outside: SIGTERM, SIGINT, a second signal, --deadline.
@Suite("feedcrawl interruption")
struct InterruptionTests {
    /// Starts a slow crawl and waits until images are being downloaded.
    func startSlowCrawl(_ feed: SlowFeed, out: OutputFolder, extra: [String] = []) async throws -> BinaryProcess {
        let process = try BinaryProcess(feed.arguments(out: out.path) + extra, environment: feed.environment)
        #expect(await waitUntil { feed.images >= 4 }, "no image requests arrived")
        return process
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130)), (SIGHUP, Int32(129))])
    func aSignalStopsTheRunAndTheManifestIsWritten(signal: Int32, status: Int32) async throws {
        try await BinaryTestGate.run {
            // Each image takes 4 s: a full run would take half a minute.
            let feed = try SlowFeed(bytesPerSecond: 300)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let process = try await startSlowCrawl(feed, out: out)
            process.send(signal)
            // A run that ignored the signal would take half a minute; the SIGKILL at 20 s would
            // show as `signaled`.
            let exit = await process.exit(timeout: 20)
            #expect(!exit.signaled)
            #expect(exit.status == status, "stderr: \(exit.stderr)")
            #expect(exit.stderr.contains("cancelled"))
            let manifest = try await out.manifest()
            let withImage = manifest.items.filter { !$0.images.isEmpty }
            #expect(!withImage.isEmpty)
            #expect(withImage.contains { $0.status == .cancelled })
            #expect(withImage.allSatisfy { $0.status == .cancelled || $0.status == .downloaded })
            let images = manifest.images.map(\.image)
            #expect(images.allSatisfy { $0.status == .cancelled || $0.status == .downloaded })
            #expect(images.filter { $0.status == .cancelled }.allSatisfy { $0.file == nil && $0.error?.hasPrefix("cancelled") == true })
            #expect(images.filter { $0.status == .downloaded }.allSatisfy { $0.file != nil })
            #expect(OutputCheck.problems(manifest, out: out.path).isEmpty, "\(OutputCheck.problems(manifest, out: out.path).prefix(5))")
            #expect(out.partFiles().isEmpty)
            // The archive is committed: its journal named by the root, no marker of a run left.
            #expect(out.manifestExists)
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")
            #expect(out.cacheFiles() == manifest.files)
        }
    }

    @Test func aSignalKeepsTheStoredVariantsOfACancelledItemAndTheRerunFetchesOnlyTheRest() async throws {
        try await BinaryTestGate.run {
            // Each image takes 2 s: first variants go before second ones once transfers wait, so
            // after a round some items have one variant stored, one waiting; and the run lasts
            // 20 s or more, so the signal finds it running even when the suite's load delays
            // this test by seconds.
            let feed = try SlowFeed(bytesPerSecond: 600)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let arguments = feed.arguments(out: out.path, allVariants: true)
            let process = try BinaryProcess(arguments, environment: feed.environment)
            #expect(await waitUntil(seconds: 30) { out.cacheFiles().count >= 12 }, "images did not arrive")
            process.send(SIGTERM)
            let exit = await process.exit(timeout: 20)
            #expect(!exit.signaled && exit.status == 143, "stderr: \(exit.stderr)")

            let manifest = try await out.manifest()
            #expect(OutputCheck.problems(manifest, out: out.path).isEmpty, "\(OutputCheck.problems(manifest, out: out.path).prefix(5))")
            let mixed = manifest.items.filter { item in
                item.images.contains { $0.status == .downloaded } && item.images.contains { $0.status == .cancelled }
            }
            #expect(!mixed.isEmpty, "no item with one variant stored and one cancelled")
            #expect(mixed.allSatisfy { $0.status == .cancelled && $0.firstStoredImage != nil })
            #expect(out.cacheFiles() == manifest.files)
            let stored = Set(manifest.images.filter { $0.image.status == .downloaded }.map(\.image.url))
            let all = Set(manifest.images.map(\.image.url))
            #expect(stored.count < all.count)

            // The rerun fetches each URL not stored yet, once, and finds the stored ones fresh.
            feed.slow = false
            let before = feed.images
            let rerun = try await BinaryProcess.run(arguments, environment: feed.environment)
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            let after = try await out.manifest()
            #expect(feed.images - before == Set(after.images.map(\.image.url)).subtracting(stored).count)
            for (item, image) in after.images {
                let want: ItemStatus = stored.contains(image.url) ? .fresh : .downloaded
                #expect(image.status == want, "\(item.id) \(image.variant)")
            }
            #expect(OutputCheck.problems(after, out: out.path).isEmpty)
            #expect(OutputCheck.leftovers(out: out.path).isEmpty)
        }
    }

    /// A demo feed whose first pages answer at once and whose later feed pages (Pixabay's
    /// `page` 2 on, the launches pages after a cursor) are held for 30 s, an empty last page
    /// after that: a run that waits for them, or lists them, shows.
    final class HeldPagesFeed: @unchecked Sendable {
        private let lock = NSLock()
        private var heldRequests: [String] = []
        private(set) var server: DemoFeedServer!

        init() throws {
            var options = DemoFeedOptions()
            options.override = { [unowned self] request in
                let held: ServerResponse
                if request.path.hasPrefix("/api"), let page = request.query["page"].flatMap(Int.init), page >= 2 {
                    held = .json(Array(#"{"total":500,"totalHits":500,"hits":[]}"#.utf8))
                } else if request.path.hasPrefix("/graphql"), String(decoding: request.body, as: UTF8.self).contains(#""cursor":""#) {
                    held = .json(Array(#"{"data":{"launches":{"hasMore":false,"cursor":null,"launches":[]}}}"#.utf8))
                } else {
                    return nil
                }
                lock.withLock { heldRequests.append(request.target) }
                var response = held
                // The server answers after 30 s, or stops waiting when the client hangs up.
                response.delayMs = 30_000
                return response
            }
            server = try DemoFeedServer(options: options)
        }

        /// The held requests received so far (their targets).
        var held: [String] { lock.withLock { heldRequests } }

        func stop() { server.stop() }
    }

    /// SIGINT while feed pages are in flight aborts them: the run does not wait for their
    /// answers (held 30 s) and lists no page after the notice; it writes its manifest (the first
    /// pages' items) and exits with 130.
    @Test func aSignalAbortsTheFeedPagesInFlight() async throws {
        try await BinaryTestGate.run {
            let feed = try HeldPagesFeed()
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let arguments = ["--pixabay-url", feed.server.pixabayURL, "--launches-url", feed.server.launchesURL,
                             "--pages", "3", "--per-page", "20", "--out", out.path]
            let process = try BinaryProcess(arguments, environment: ["PIXABAY_KEY": feed.server.apiKey])
            // Pixabay's pages 2 and 3 and the launches' page 2 in flight.
            let inFlight = await waitUntil(seconds: 30) { feed.held.count >= 3 }
            #expect(inFlight, "held: \(feed.held), stderr: \(process.stderrSoFar)")
            let sent = Date()
            process.send(SIGINT)
            let exit = await process.exit(timeout: 25)
            let seconds = Date().timeIntervalSince(sent)
            #expect(!exit.signaled && exit.status == 130, "stderr: \(exit.stderr)")
            // Waiting for an answer would take 30 s from the request.
            #expect(seconds < 20, "exited \(seconds) s after the signal")
            let lines = exit.stderr.split(separator: "\n").map(String.init)
            let notice = try #require(lines.firstIndex { $0.contains("SIGINT received: stopping") }, "\(exit.stderr)")
            let pages = lines.indices.filter { lines[$0].range(of: #": page \d+: \d+ items"#, options: .regularExpression) != nil }
            #expect(pages.allSatisfy { $0 < notice }, "a page listed after the notice:\n\(exit.stderr)")
            #expect(pages.map { lines[$0] }.sorted() == ["feedcrawl: launches: page 1: 20 items", "feedcrawl: pixabay: page 1: 20 items"],
                    "\(exit.stderr)")
            // The archive holds the first pages' items only.
            let manifest = try await out.manifest()
            #expect(manifest.items.count == 40, "\(manifest.items.count) items")
            #expect(Set(manifest.items.map(\.page)) == [1])
            #expect(feed.held.count == 3, "\(feed.held)")
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
            // No root was written, but the journal files hold every outcome and parse.
            #expect(!out.manifestExists)
            #expect(out.hasUnnamedJournal)
            let journaled = try #require(OutputCheck.journal(out: out.path))
            #expect(journaled.skipped == 0)
            #expect(journaled.items.count == 80)
            #expect(Set(journaled.items.map(\.key)).count == 80)

            // The next run adopts them and finds everything fresh.
            feed.slow = false
            let imagesBefore = feed.images
            let rerun = try await BinaryProcess.run(feed.arguments(out: out.path), environment: feed.environment)
            #expect(rerun.status == 0, "stderr: \(rerun.stderr)")
            #expect(feed.images == imagesBefore)
            let manifest = try await out.manifest()
            #expect(manifest.images.allSatisfy { $0.image.status == .fresh })
            #expect(manifest.images.count > 70)
            #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))")
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
                feed.arguments(out: out.path) + ["--deadline", "700ms"], environment: feed.environment, timeout: 30)
            let elapsed = Date().timeIntervalSince(started)
            // A full run would take about a minute: ended by the SIGKILL at 30 s, it would be signaled.
            #expect(!result.signaled)
            #expect(result.status == 1, "stderr: \(result.stderr)")
            #expect(elapsed >= 0.7)  // not before the deadline
            #expect(result.stderr.contains("deadline"))
            #expect(result.stdout.isEmpty)
            let manifest = try await out.manifest()
            #expect(manifest.run?.deadlineReached == true)
            let cancelled = manifest.items.filter { $0.status == .cancelled }
            #expect(!cancelled.isEmpty)
            let cancelledImages = manifest.images.map(\.image).filter { $0.status == .cancelled }
            #expect(cancelledImages.count >= cancelled.count)
            #expect(cancelledImages.allSatisfy { $0.error == "cancelled: deadline reached" })
            #expect(manifest.images.allSatisfy { [.cancelled, .downloaded].contains($0.image.status) })
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
            let exportBefore = try await ArchiveExport.read(out.path).text

            // Another process (this one) holds the lock, as a running crawl would.
            let lock = try RunLock(outDirectory: out.path)
            let imagesBefore = feed.images
            let second = try await BinaryProcess.run(feed.arguments(out: out.path) + ["--ttl", "0s"], environment: feed.environment)
            lock.release()
            #expect(second.status == 75)
            #expect(second.stderr.contains("held by another feedcrawl run"))
            #expect(out.snapshot() == before)
            #expect(try Data(contentsOf: URL(fileURLWithPath: out.path + "/manifest.json")) == manifestBefore)
            #expect(try await ArchiveExport.read(out.path).text == exportBefore)
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
