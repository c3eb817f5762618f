import Glibc

extension Crawler {
    /// What the final phase did.
    struct Finish {
        var plan: CacheMaintenancePlan
        var orphansRemoved = 0
        var storageProblem: String?
        /// The manifest written, when it was.
        var manifest: Manifest?
    }

    /// The final phase of a run: plans eviction and orphan removal, writes the manifest
    /// atomically, then removes the journal, the evicted files, orphans and `.part` files.
    ///
    /// Files are deleted only after the manifest that no longer references them is on disk, so
    /// a kill at any point leaves every referenced file in place (at worst some orphans, which
    /// the next run removes). When the manifest cannot be written nothing is deleted.
    func finish(
        items: [ManifestItem], previous: [ManifestItem], layout: CacheLayout, run: RunRecord
    ) -> Finish {
        let scan = layout.scanCache()
        let plan = CacheMaintenancePlan(
            current: items, previous: previous, present: scan.entries, capBytes: configuration.cacheMaxBytes)
        var result = Finish(plan: plan)
        var record = run
        record.evicted = plan.evicted.count
        record.evictedBytes = plan.evictedBytes
        record.orphansRemoved = (run.orphansRemoved ?? 0) + plan.orphans.count + scan.temporary.count
        let manifest = Manifest(generatedAt: run.finishedAt ?? run.startedAt, run: record, items: plan.items)
        configuration.checkpoint?(.outcomesJournaled)
        do {
            try ManifestStore.save(manifest, path: layout.manifestPath)
        } catch {
            result.storageProblem = "cannot write the manifest: \(error)"
            return result
        }
        result.manifest = manifest
        configuration.checkpoint?(.manifestWritten)
        try? Journal.remove(path: layout.journalPath)
        for file in plan.evicted {
            unlink(layout.absolutePath(file))
        }
        for file in plan.orphans + scan.temporary where unlink(layout.absolutePath(file)) == 0 {
            result.orphansRemoved += 1
        }
        return result
    }
}
