import Glibc

extension Crawler {
    /// What the final phase did.
    struct Finish {
        var plan: CacheMaintenancePlan
        var orphansRemoved = 0
        var storageProblem: String?
        /// Whether the manifest was written.
        var manifestWritten = false
    }

    /// The final phase of a run: plans eviction and orphan removal, writes the manifest
    /// atomically, then removes the journal, the evicted files, orphans and `.part` files.
    ///
    /// Files are deleted only after the manifest that no longer references them is on disk, so
    /// a kill at any point leaves every referenced file in place (at worst some orphans, which
    /// the next run removes). When the manifest cannot be written nothing is deleted. Then
    /// `OUT/index.html` is written from the same items (a failure there is only a warning).
    ///
    /// This run's items are read from the ledger's compact records one at a time; only the
    /// carried-over items (already in memory as the previous manifest) are held as values.
    func finish(
        contents: CrawlLedger.Contents, previous: [ManifestItem], layout: CacheLayout, run: RunRecord
    ) -> Finish {
        // The scan's names are only needed for the plan: let them go before the items are read
        // again (a 20,000-file cache lists ~2.5 MB of names).
        let (plan, temporary): (CacheMaintenancePlan, [String]) = {
            let scan = layout.scanCache()
            let plan = CacheMaintenancePlan(
                current: contents.items, previous: previous, present: scan.entries,
                capBytes: configuration.cacheMaxBytes)
            return (plan, scan.temporary)
        }()
        var result = Finish(plan: plan)
        var record = run
        record.evicted = plan.evicted.count
        record.evictedBytes = plan.evictedBytes
        record.orphansRemoved = (run.orphansRemoved ?? 0) + plan.orphans.count + temporary.count
        let generatedAt = run.finishedAt ?? run.startedAt
        var manifest = Manifest(generatedAt: generatedAt)
        manifest.run = record
        let sorted = contents.sortedItems(mergedWith: plan.carried)
        configuration.checkpoint?(.outcomesJournaled)
        do {
            try ManifestWriter.save(manifest, sortedItems: sorted, path: layout.manifestPath)
        } catch {
            result.storageProblem = "cannot write the manifest: \(error)"
            return result
        }
        result.manifestWritten = true
        configuration.checkpoint?(.manifestWritten)
        try? Journal.remove(path: layout.journalPath)
        for file in plan.evicted {
            unlink(layout.absolutePath(file))
        }
        for file in plan.orphans + temporary where unlink(layout.absolutePath(file)) == 0 {
            result.orphansRemoved += 1
        }
        // Every item left references files the scan found (the plan drops items whose file is
        // gone or evicted; this run's files were just stored or checked): no `stat` per figure.
        let outline = ContactSheet.Outline(
            keys: sorted.keys, earlier: plan.carried.filter { ($0.lastSeen ?? .distantPast) < run.startedAt }.count)
        do {
            try ContactSheet.write(
                generatedAt: generatedAt, run: record, sortedItems: sorted, outline: outline,
                outDirectory: layout.outDirectory,
                fileExists: { _ in true })
        } catch {
            events(.warning(source: "", message: "cannot write the contact sheet: \(error)"))
        }
        return result
    }
}
