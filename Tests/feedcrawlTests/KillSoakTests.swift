import DemoFeed
import FeedCrawlKit
import Foundation
import Testing

/// Crawls of the built binary against a slowed demo feed, two image variants per source, each
/// killed with SIGKILL at a random moment, each followed by a rerun that must complete. After
/// every kill the output must still be consistent (the archive exports, with what the killed run
/// journaled, and every file it names is intact and is the server's image); after every rerun
/// `feedcrawl manifest --verify` is clean,
/// every variant of everything the feed lists is there, verified against the server's own
/// bytes, what the killed run journaled as stored is not fetched again, and no temporary file
/// is left.
///
/// `FEEDCRAWL_SOAK_ROUNDS` (default 5; scripts/test runs 20) and `FEEDCRAWL_SOAK_SEED` (default
/// random, printed) control it.
@Suite("Kill soak", .serialized)
struct KillSoakTests {
    /// SplitMix64, so a failing soak can be replayed from its printed seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static var rounds: Int {
        ProcessInfo.processInfo.environment["FEEDCRAWL_SOAK_ROUNDS"].flatMap(Int.init) ?? 5
    }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["FEEDCRAWL_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...999_999)
    }

    static func arguments(_ feed: DemoFeedServer, out: String, pages: Int) -> [String] {
        ["--pixabay-url", feed.pixabayURL, "--launches-url", feed.launchesURL, "--pages", String(pages),
         "--per-page", "20", "--concurrency", "4", "--per-host", "4", "--out", out] + SlowFeed.twoVariantsEach
    }

    static let environment = ["PIXABAY_KEY": "soak-key"]

    /// Starts the binary, kills it with SIGKILL after `delay` seconds; returns whether the kill
    /// ended it (false when it had finished already).
    static func runAndKill(_ arguments: [String], after delay: Double) async throws -> Bool {
        let process = try BinaryProcess(arguments, environment: environment)
        try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
        process.send(SIGKILL)
        let exit = await process.exit()
        return exit.signaled && exit.status == SIGKILL
    }

    /// Whether `item` holds both variants its source was asked for (a launch without a patch
    /// holds none).
    static func hasEveryVariant(_ item: ManifestItem) -> Bool {
        let variants = item.images.map(\.variant)
        if item.source == "pixabay" { return variants == ["preview", "webformat"] }
        return variants == ["small", "large"] || variants.isEmpty
    }

    @Test func killedRunsLoseNothing() async throws {
        try await BinaryTestGate.run { try await soak() }
    }

    func soak() async throws {
        let seed = Self.seed
        print("kill soak: \(Self.rounds) rounds, FEEDCRAWL_SOAK_SEED=\(seed)")
        var random = Generator(state: seed)
        var options = DemoFeedOptions()
        options.latencyMs = 40
        let feed = try DemoFeedServer(options: options)
        defer { feed.stop() }
        // The server's own list (previews, small patches); the other variants' hashes are
        // fetched from it as manifests name them.
        var expected = Dictionary(try await offPool { feed.expectedImages }.map { ($0.url, $0.sha256Hex) }, uniquingKeysWith: { a, _ in a })
        let root = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }

        // How long a whole crawl of 3 pages takes here: kills land within that.
        let start = Date()
        let baseline = try await BinaryProcess.run(
            Self.arguments(feed, out: root + "/baseline", pages: 3), environment: Self.environment)
        let duration = Date().timeIntervalSince(start)
        try #require(baseline.status == 0, "baseline: \(baseline.stderr)")

        var out = root + "/round-0"
        var landed = 0
        var journaledTotal = 0
        for round in 1...Self.rounds {
            // Half the rounds start afresh, the others continue the previous folder with more
            // pages (so a kill can hit a run that adopts a journal and commits over an old root).
            let fresh = round == 1 || Bool.random(using: &random)
            if fresh { out = root + "/round-\(round)" }
            let pages = Int.random(in: 1...4, using: &random)
            // A run takes about `duration` per 3 pages (the feed's latency dominates), less when
            // continuing (cached images are fresh); kills fall between start-up and that end.
            let expectedRun = duration * Double(pages) / 3 * (fresh ? 1 : 0.6)
            let delay = Double.random(in: 0.01...max(0.05, expectedRun), using: &random)
            let args = Self.arguments(feed, out: out, pages: pages)
            let killed = try await Self.runAndKill(args, after: delay)
            if killed { landed += 1 }
            let context = "round \(round) (seed \(seed), \(fresh ? "fresh" : "continued"), \(pages) pages, kill at \(Int(delay * 1000)) ms)"

            // Right after the kill: whatever archive exists (a root, or a killed first run's
            // journal files) is consistent with the disk.
            if FileManager.default.fileExists(atPath: out + "/manifest.json") || !ArchiveFiles.unnamedJournal(out).isEmpty {
                try await ServerImages.complete(&expected, for: await OutputCheck.items(out: out) ?? [])
                let problems = await OutputCheck.problems(out: out, expected: expected)
                #expect(problems.isEmpty, "\(context), after the kill: \(problems.prefix(5))")
            }

            // What the killed run journaled as stored must survive: the rerun finds it fresh.
            let journaled = OutputCheck.journal(out: out)?.items ?? []
            let saved = Set(journaled.flatMap { item in
                item.images.filter(\.status.hasImage).map { "\(item.source)/\(item.id)/\($0.variant)" }
            })

            let rerun = try await BinaryProcess.run(args, environment: Self.environment)
            #expect(rerun.status == 0, "\(context): rerun exited \(rerun.status): \(rerun.stderr)")
            let verify = try await BinaryProcess.run(["manifest", "--verify", "--out", out])
            #expect(verify.status == 0 && verify.stdout.contains("no problems"),
                    "\(context): manifest --verify: \(verify.stdout)\(verify.stderr)")
            let items = await OutputCheck.items(out: out) ?? []
            try await ServerImages.complete(&expected, for: items)
            let problems = await OutputCheck.problems(out: out, expected: expected)
            #expect(problems.isEmpty, "\(context): \(problems.prefix(5))")
            #expect(OutputCheck.leftovers(out: out).isEmpty, "\(context): left \(OutputCheck.leftovers(out: out))")
            let complete: Set<ItemStatus> = [.downloaded, .fresh, .revalidated, .noImage]
            let sawThisRun = items.filter { item in
                item.page <= pages && complete.contains(item.status) && Self.hasEveryVariant(item)
            }
            #expect(sawThisRun.count == 40 * pages, "\(context): \(sawThisRun.count) of \(40 * pages) items complete")
            let refetched = items.flatMap { item in
                item.images.filter { saved.contains("\(item.source)/\(item.id)/\($0.variant)") && $0.status != .fresh }
                    .map { "\(item.id) \($0.variant) \($0.status.rawValue)" }
            }
            #expect(refetched.isEmpty, "\(context): journaled images fetched again: \(refetched.prefix(3))")
            journaledTotal += saved.count
            let bad = items.flatMap { item in
                item.images.filter { !$0.status.hasImage }.map { "\(item.id) \($0.variant) \($0.status.rawValue) \($0.error ?? "")" }
            }
            #expect(bad.isEmpty, "\(context): \(bad.prefix(3))")
            #expect(items.allSatisfy { complete.contains($0.status) })
        }
        print("kill soak: \(landed) of \(Self.rounds) kills landed while the crawl was running (baseline \(Int(duration * 1000)) ms); "
            + "\(journaledTotal) journaled images kept")
        #expect(landed >= Self.rounds / 4, "too few kills hit a running crawl for the soak to mean anything")
    }
}
