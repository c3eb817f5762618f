import FeedCrawlKit
import Foundation
import Testing

/// SIGKILL at several points of a crawl, then a rerun: the cache always ends complete and
/// consistent (`feedcrawl manifest --verify` clean), with no `.part` file left, the killed run's
/// journal files adopted (named by the new root) and its `.unfinished` marker gone.
@Suite("feedcrawl crash recovery")
struct CrashRecoveryTests {
    /// Reruns the crawl at full speed and checks the result.
    func rerunAndCheck(
        _ feed: SlowFeed, _ out: OutputFolder, allVariants: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        feed.slow = false
        let rerun = try await BinaryProcess.run(feed.arguments(out: out.path, allVariants: allVariants), environment: feed.environment)
        #expect(rerun.status == 0, "rerun stderr: \(rerun.stderr)", sourceLocation: sourceLocation)
        let verify = try await BinaryProcess.run(["manifest", "--verify", "--out", out.path])
        #expect(verify.status == 0, "verify: \(verify.stdout)\(verify.stderr)", sourceLocation: sourceLocation)
        #expect(verify.stdout.contains("no problems"), sourceLocation: sourceLocation)
        #expect(out.partFiles().isEmpty, sourceLocation: sourceLocation)
        #expect(!out.hasUnnamedJournal, sourceLocation: sourceLocation)
        #expect(OutputCheck.leftovers(out: out.path).isEmpty, "\(OutputCheck.leftovers(out: out.path))", sourceLocation: sourceLocation)
        let manifest = try await out.manifest()
        let problems = OutputCheck.problems(manifest, out: out.path)
        #expect(problems.isEmpty, "\(problems.prefix(5))", sourceLocation: sourceLocation)
        #expect(manifest.version == 2, sourceLocation: sourceLocation)
        #expect(manifest.items.filter { $0.source == "pixabay" }.count == 40, sourceLocation: sourceLocation)
        #expect(manifest.items.filter { $0.source == "launches" }.count == 40, sourceLocation: sourceLocation)
        let withImage = manifest.items.filter { !$0.images.isEmpty }
        #expect(withImage.count > 70, sourceLocation: sourceLocation)
        for item in withImage {
            let variants = item.images.map(\.variant)
            let want = item.source == "pixabay" ? ["preview", "webformat"] : ["small", "large"]
            #expect(variants == (allVariants ? want : [want[0]]), "\(item.id): \(variants)", sourceLocation: sourceLocation)
            #expect(item.status == .downloaded || item.status == .fresh, "\(item.id): \(item.status)", sourceLocation: sourceLocation)
            for image in item.images {
                #expect(image.status == .downloaded || image.status == .fresh, "\(item.id) \(image.variant): \(image.status)", sourceLocation: sourceLocation)
                #expect(image.sha256 == SlowFeed.imageSHA256, sourceLocation: sourceLocation)
            }
        }
        #expect(out.cacheFiles() == manifest.files, sourceLocation: sourceLocation)
    }

    /// Images for the runs these tests kill: 4 s each, so a run lasts 20 s or more and the kill
    /// still finds it running when the whole suite on 2 cores delays this test by seconds (it
    /// has: at 0.6 s an image, a starved test once found the run already finished).
    static let killedRunRate = 300

    @Test func killedAtTheStart() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(bytesPerSecond: Self.killedRunRate)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let process = try BinaryProcess(feed.arguments(out: out.path), environment: feed.environment)
            #expect(await waitUntil { FileManager.default.fileExists(atPath: out.path + "/.lock") })
            // What the pid was when it was signalled: once (in 25 full runs) the run went on to
            // its end as if no signal had reached it.
            let before = (try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8)) ?? "no /proc entry"
            let sent = process.send(SIGKILL)
            let exit = await process.exit()
            #expect(
                exit.signaled && exit.status == SIGKILL,
                "pid \(process.pid) (\(before.prefix(60))): \(sent); status \(exit.status); stderr: \(exit.stderr)")
            try await rerunAndCheck(feed, out)
        }
    }

    @Test func killedMidDownloadTwice() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(bytesPerSecond: Self.killedRunRate)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            // The first round asks for the default variants, the second (over what the first
            // left) and the rerun for two of each source.
            for round in 1...2 {
                // What the previous round left does not count.
                let oldParts = Set(out.partFiles())
                let oldFiles = out.cacheFiles()
                let process = try BinaryProcess(
                    feed.arguments(out: out.path, allVariants: round == 2), environment: feed.environment)
                // New images are stored, others are arriving.
                let midway = await waitUntil(seconds: 60) {
                    out.cacheFiles().subtracting(oldFiles).count >= 2 && !Set(out.partFiles()).subtracting(oldParts).isEmpty
                }
                #expect(midway, "round \(round); stderr so far: \(process.stderrSoFar)")
                process.send(SIGKILL)
                let exit = await process.exit()
                #expect(exit.signaled && exit.status == SIGKILL, "status \(exit.status); stderr: \(exit.stderr)")
                // Each image takes 4 s to arrive: the kill caught some halfway.
                #expect(!out.partFiles().isEmpty)
            }
            // The second run left its marker; the pages it finished (if any: a page is journaled
            // once all its items are) are in journal files no root names, which the rerun adopts.
            #expect(out.unfinishedMarkerExists)
            try await rerunAndCheck(feed, out, allVariants: true)
        }
    }

    @Test func killedTwiceBeforeAnyManifestThenRerun() async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let killAt = feed.environment.merging(["FEEDCRAWL_TEST_KILL_AT": CrawlCheckpoint.outcomesJournaled.rawValue]) { $1 }
            // The first run dies before writing a root: only its journal files are left.
            let first = try await BinaryProcess.run(feed.arguments(out: out.path), environment: killAt)
            #expect(first.signaled && first.status == SIGKILL, "stderr: \(first.stderr)")
            #expect(!out.manifestExists && out.hasUnnamedJournal)
            let firstItems = Set((ArchiveFiles.journalItems(out.path)?.items ?? []).map(\.key))
            #expect(firstItems.count == 80)
            // The second adopts them, journals its own pages, then dies the same way: its own
            // journal files are named by no root (the first run's may be, if the adoption was
            // committed first), and the archive read now holds both runs' pages, consistent
            // with the disk.
            let second = try await BinaryProcess.run(feed.arguments(out: out.path, allVariants: true), environment: killAt)
            #expect(second.signaled && second.status == SIGKILL, "stderr: \(second.stderr)")
            #expect(second.stderr.contains("adopted"), "stderr: \(second.stderr)")
            #expect(out.hasUnnamedJournal)
            let read = try await out.manifest()
            #expect(Set(read.items.map(\.key)).isSuperset(of: firstItems))
            let problems = OutputCheck.problems(read, out: out.path)
            #expect(problems.isEmpty, "\(problems.prefix(5))")
            // The third adopts both and finishes.
            let imagesBefore = feed.images
            try await rerunAndCheck(feed, out, allVariants: true)
            #expect(feed.images == imagesBefore)
        }
    }

    @Test(arguments: CrawlCheckpoint.allCases)
    func killedDuringTheFinalWrite(at checkpoint: CrawlCheckpoint) async throws {
        try await BinaryTestGate.run {
            let feed = try SlowFeed(slow: false)
            defer { feed.stop() }
            let out = OutputFolder()
            defer { out.remove() }
            let exit = try await BinaryProcess.run(
                feed.arguments(out: out.path, allVariants: true),
                environment: feed.environment.merging(["FEEDCRAWL_TEST_KILL_AT": checkpoint.rawValue]) { $1 })
            #expect(exit.signaled && exit.status == SIGKILL, "stderr: \(exit.stderr)")
            // Killed before the root: its journal files are named by none; after it, by the new root.
            #expect(out.hasUnnamedJournal == (checkpoint == .outcomesJournaled))
            #expect(out.manifestExists == (checkpoint != .outcomesJournaled))
            #expect(out.unfinishedMarkerExists)
            // What a kill inside the atomic save of the root leaves behind (the folder store stages
            // a body next to its destination).
            try Data("{\"version\":".utf8).write(to: URL(fileURLWithPath: out.path + "/manifest.json.0123456789ab.part"))

            // Every outcome was journaled: the rerun finds every image fresh and requests none.
            let imagesBefore = feed.images
            try await rerunAndCheck(feed, out, allVariants: true)
            #expect(feed.images == imagesBefore)
            let manifest = try await out.manifest()
            #expect(manifest.images.allSatisfy { $0.image.status == .fresh })
            #expect(manifest.items.filter { !$0.images.isEmpty }.allSatisfy { $0.status == .fresh })
        }
    }
}
