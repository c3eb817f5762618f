import FoundationEssentials
import FeedCrawlSupport

/// The one sequence that publishes an archive's state, for the end of a crawl and for
/// `manifest merge`: the cache is listed; when `capBytes` is set a first pass plans the
/// eviction; the inputs are merged into the new manifest, written atomically (each item also
/// goes to `sheet`); the session stores it; `stored` runs (the crawl removes its journal); then
/// the cache files no item references (evicted, orphaned, `.part`) are removed, and the contact
/// sheet is written (a failure there is only `Outcome.contactSheetProblem`).
///
/// Files are deleted only after the manifest that no longer references them is stored, so a
/// kill at any point leaves every referenced file in place (at worst some orphans, which the
/// next run removes). When the manifest cannot be written or stored nothing is deleted.
struct ManifestCommit {
    /// How the inputs are merged; `present` is filled in from the listing.
    var policy: ManifestMerge.Policy
    /// Room to reserve for the listing and the referenced files; default 0.
    var capacity = 0
    /// `--cache-max` to plan the eviction against; nil (default): nothing is evicted.
    var capBytes: Int64?
    /// The contact sheet each item is added to, written after the sweep; default nil (none).
    var sheet: ContactSheet.Index?
    /// Whether unreferenced files are removed once the manifest is stored; default true (a
    /// shard sweeps nothing: the merge does, for all shards).
    var sweeps = true
    /// Crash tests stop here (`CrawlConfiguration.checkpoint`); default nil.
    var checkpoint: (@Sendable (CrawlCheckpoint) -> Void)?

    /// What the sequence did.
    struct Outcome {
        /// The merge's counts and referenced files (empty when the manifest was not written).
        var merged = ManifestMerge.Result()
        /// The eviction, when one was planned.
        var plan: EvictionPlan?
        /// `.part` names the listing found.
        var temporary = 0
        /// Evicted files that were in the cache (removed by the sweep, counted as evicted).
        var evictedPresent = 0
        /// Files in the cache that the new manifest does not reference (evicted ones included).
        var unreferencedPresent = 0
        /// Unreferenced files the sweep removed, evicted ones not counted.
        var orphansRemoved = 0
        /// Why the cache could not be listed, or the manifest written or stored.
        var storageProblem: String?
        /// Why the contact sheet could not be written.
        var contactSheetProblem: String?
    }

    /// Runs the sequence in `session`, writing the manifest at `manifestPath` with
    /// `generatedAt`. `streams` opens the inputs (twice when an eviction is planned). The
    /// manifest's run record is `run` with what the merge and the listing found: the counts of
    /// the run's items (`countsAll`: of every item), the eviction, and with `sweeps` the files
    /// removed (added to `run`'s).
    func run(
        in session: any ArchiveSession, manifestPath: String, generatedAt: Date,
        streams: () throws -> [any ItemStream], run: RunRecord, countsAll: Bool = false, stored: () -> Void = {}
    ) -> Outcome {
        var outcome = Outcome()
        let store = session.store
        let present: CacheFiles, temporary: [String]
        do {
            (present, temporary) = try CacheFiles.scan(store, capacity: capacity)
        } catch {
            // Without the listing nothing is merged or swept; the journal stays for the next run.
            outcome.storageProblem = "cannot list the cache: \(error)"
            return outcome
        }
        outcome.temporary = temporary.count
        var policy = self.policy
        policy.present = present
        do {
            if let capBytes {
                var inputs = try streams()
                let dry = try ManifestMerge(policy: policy).run(&inputs, planning: true) { _ in }
                let plan = EvictionPlan(
                    candidates: dry.candidates, protected: dry.protected, protectedBytes: dry.protectedBytes,
                    capBytes: capBytes)
                policy.evicted = plan.evictedFiles
                outcome.plan = plan
            }
            checkpoint?(.outcomesJournaled)
            outcome.evictedPresent = policy.evicted.map { present.count - present.count(notIn: $0) } ?? 0
            var inputs = try streams()
            let merge = ManifestMerge(policy: policy, capacity: capacity)
            let sheet = self.sheet
            try AtomicFile.streamThrowing(to: manifestPath) { out in
                var writer = ManifestWriter(generatedAt: generatedAt)
                let merged = try merge.run(&inputs) { item in
                    try writer.append(item, to: &out)
                    sheet?.add(item.item)
                }
                outcome.merged = merged
                outcome.unreferencedPresent = present.count(notIn: merged.referenced)
                var record = run
                let counts = countsAll ? merged.total : merged.run
                record.counts = Dictionary(uniqueKeysWithValues: counts.items.map { ($0.key.rawValue, $0.value) })
                record.images = Dictionary(uniqueKeysWithValues: counts.images.map { ($0.key.rawValue, $0.value) })
                record.evicted = outcome.plan?.evicted.count ?? 0
                record.evictedBytes = outcome.plan?.evictedBytes ?? 0
                record.orphansRemoved = sweeps
                    ? (run.orphansRemoved ?? 0) + outcome.temporary + outcome.unreferencedPresent - outcome.evictedPresent : nil
                try writer.finish(run: record, to: &out)
            }
        } catch {
            outcome.storageProblem = "cannot write the manifest: \(error)"
            return outcome
        }
        checkpoint?(.manifestWritten)
        do {
            try session.publish(manifest: manifestPath)
        } catch {
            outcome.storageProblem = "cannot store the manifest: \(error)"
            return outcome
        }
        stored()
        // The listing saw every file: when the manifest references all of them and no `.part`
        // name was left, there is nothing to sweep (no second listing).
        if sweeps, outcome.temporary > 0 || outcome.unreferencedPresent > 0 {
            // A listing that fails leaves the files for the next sweep.
            let removed = (try? outcome.merged.referenced.removeOthers(in: store, temporary: true)) ?? 0
            outcome.orphansRemoved = max(0, removed - outcome.evictedPresent)
        }
        do {
            if let sheet { try ContactSheet.write(index: sheet, manifestPath: manifestPath, outDirectory: session.directory) }
        } catch {
            outcome.contactSheetProblem = "cannot write the contact sheet: \(error)"
        }
        return outcome
    }
}
