import FoundationEssentials
import Glibc

extension Crawler {
    /// What the final phase did.
    struct Finish {
        /// What the run knew of the previous manifest when it started.
        struct Previous {
            /// Bytes of its distinct files, how many images have files, whether it was in order.
            var bytes: Int64
            var files: Int
            var inOrder: Bool?
        }

        var counts = StatusCounts()
        var runBySource: [String: StatusCounts] = [:]
        var manifestBySource: [String: StatusCounts] = [:]
        var evictedFiles = 0
        var evictedBytes: Int64 = 0
        /// Bytes and number of the distinct files the new manifest references.
        var cacheBytes: Int64 = 0
        var cacheFiles = 0
        var overCap = false
        var orphansRemoved = 0
        var storageProblem: String?
        /// Why the contact sheet could not be written.
        var contactSheetProblem: String?
        /// The files the new manifest references.
        var referenced: CacheFiles?
        /// Evicted files that were on disk (the sweep removes them with the orphans).
        var evictedPresent = 0
        /// Files on disk at the start of this phase that the new manifest does not reference.
        var unreferencedPresent = 0
    }

    /// The final phase of a run, streamed: the cache is scanned; when the files could exceed
    /// `--cache-max` a first pass plans the eviction; then this run's items (from the journal)
    /// and the previous manifest's are merged into the new manifest, written atomically; then
    /// the journal, and every cache file no item references (evicted, orphaned, `.part`), are
    /// removed; then `OUT/index.html` is written (a failure there is only a warning).
    ///
    /// Files are deleted only after the manifest that no longer references them is on disk, so
    /// a kill at any point leaves every referenced file in place (at worst some orphans, which
    /// the next run removes). When the manifest cannot be written nothing is deleted.
    func finish(
        recorder: RunItems, previous: Finish.Previous, pipeline: ImagePipeline, layout: CacheLayout, run: RunRecord,
        spill: Spill?, session: any ArchiveSession
    ) -> Finish {
        var result = Finish()
        // A shard writes no contact sheet: the merge does, for all shards.
        let sheet = configuration.shard == nil
            ? ContactSheet.Index(spill: spill, run: run, linkBase: session.linkBase) : nil
        let room = previous.files + 2 * recorder.count + 1024
        let present: CacheFiles, temporary: [String]
        do {
            (present, temporary) = try CacheFiles.scan(pipeline.store, capacity: room)
        } catch {
            // Without the listing nothing is merged or swept; the journal stays for the next run.
            result.storageProblem = "cannot list the cache: \(error)"
            return result
        }
        let sorted = previous.inOrder
        let reconcile: (CacheKey) -> ImageRecord.Outcome? = { pipeline.finishedOutcome(forFile: $0) }
        var policy = ManifestMerge.Policy(
            precedence: .firstInput, present: present, reconcile: reconcile,
            runStarted: run.startedAt.wholeSeconds)
        policy.dropsPlaceholders = true
        func streams() throws -> [any ItemStream] {
            [
                RunItemStream(entries: recorder.sorted(), journal: recorder.journal, verbatim: true),
                try ManifestItemStream(path: layout.manifestPath, spill: spill, sorted: sorted),
            ]
        }
        do {
            // Only when the archive and this run's downloads together could exceed the cap, and
            // never in a shard (the merge evicts: another shard may use the files).
            if configuration.shard == nil, previous.bytes + pipeline.downloadedBytes > configuration.cacheMaxBytes {
                var inputs = try streams()
                let dry = try ManifestMerge(policy: policy).run(&inputs, planning: true) { _ in }
                let plan = EvictionPlan(
                    candidates: dry.candidates, protected: dry.protected, protectedBytes: dry.protectedBytes,
                    capBytes: configuration.cacheMaxBytes)
                policy.evicted = plan.evictedFiles
                result.evictedFiles = plan.evicted.count
                result.evictedBytes = plan.evictedBytes
                result.overCap = plan.overCap
                result.cacheBytes = plan.cacheBytes
            }
            configuration.checkpoint?(.outcomesJournaled)
            // Evicted files go in the sweep below too, but they are counted as evicted, not as
            // orphans.
            let evictedPresent = policy.evicted.map { present.count - present.count(notIn: $0) } ?? 0
            result.evictedPresent = evictedPresent
            var record = run
            var inputs = try streams()
            let merge = ManifestMerge(policy: policy, capacity: room)
            let evictedFiles = result.evictedFiles, evictedBytes = result.evictedBytes
            let index = sheet
            try AtomicFile.streamThrowing(to: layout.manifestPath) { out in
                var writer = ManifestWriter(generatedAt: run.finishedAt ?? run.startedAt)
                let merged = try merge.run(&inputs) { item in
                    try writer.append(item, to: &out)
                    index?.add(item.item)
                }
                record.counts = Dictionary(uniqueKeysWithValues: merged.run.items.map { ($0.key.rawValue, $0.value) })
                record.images = Dictionary(uniqueKeysWithValues: merged.run.images.map { ($0.key.rawValue, $0.value) })
                record.evicted = evictedFiles
                record.evictedBytes = evictedBytes
                let unreferenced = present.count(notIn: merged.referenced)
                record.orphansRemoved = configuration.shard != nil ? nil
                    : (run.orphansRemoved ?? 0) + temporary.count + unreferenced - evictedPresent
                try writer.finish(run: record, to: &out)
                result.counts = merged.run
                result.runBySource = merged.runBySource
                result.manifestBySource = merged.bySource
                result.referenced = merged.referenced
                result.cacheBytes = merged.referencedBytes
                result.cacheFiles = merged.referenced.count
                result.unreferencedPresent = unreferenced
            }
        } catch {
            result.storageProblem = "cannot write the manifest: \(error)"
            return result
        }
        configuration.checkpoint?(.manifestWritten)
        do {
            try session.publish(manifest: layout.manifestPath)
        } catch {
            result.storageProblem = "cannot store the manifest: \(error)"
            return result
        }
        try? recorder.journal.remove()
        // A shard sweeps nothing and writes no contact sheet: the merge does, for all shards.
        guard configuration.shard == nil else { return result }
        // The scan at the start of this phase saw every file: when the manifest references all
        // of them and no `.part` file was left, there is nothing to sweep (no second readdir).
        if let referenced = result.referenced, !temporary.isEmpty || result.unreferencedPresent > 0 {
            // A listing that fails leaves the files for the next sweep.
            let removed = (try? referenced.removeOthers(in: pipeline.store, temporary: true)) ?? 0
            result.orphansRemoved = max(0, removed - result.evictedPresent)
        }
        do {
            if let sheet { try ContactSheet.write(index: sheet, manifestPath: layout.manifestPath, outDirectory: layout.outDirectory) }
        } catch {
            result.contactSheetProblem = "cannot write the contact sheet: \(error)"
        }
        return result
    }

    /// Folds the journal a killed run left into the manifest (saved atomically), then removes
    /// the journal: finished downloads are not fetched again. A version-1 manifest or journal is
    /// carried over (and written as version 2).
    static func fold(_ layout: CacheLayout, spill: Spill?) throws {
        do {
            let header = try ManifestReader.header(path: layout.manifestPath)
            let variants = ManifestItemV1.Variants(options: header?.run?.options ?? [:])
            let journal = try Journal(path: layout.journalPath)
            let sorter = ItemSorter(order: .key, spill: spill)
            var files: [UInt64: (location: ItemLocation, image: Int)] = [:]
            try Journal.read(path: layout.journalPath, variants: variants) { item, location in
                sorter.add(source: item.source, id: item.id, page: item.page, location: location)
                for (index, image) in item.images.enumerated() {
                    if let file = image.file, let key = CacheKey(file: file) { files[key.prefix] = (location, index) }
                }
            }
            let reconcile: (CacheKey) -> ImageRecord.Outcome? = { key in
                guard let place = files[key.prefix],
                      let item = try? journal.withLine(at: place.location, { try ItemJSON.decode($0, v1: variants) }),
                      place.image < item.images.count else { return nil }
                let image = item.images[place.image]
                return image.file.flatMap(CacheKey.init(file:))?.hex == key.hex ? image.outcome : nil
            }
            var inputs: [any ItemStream] = [
                RunItemStream(entries: sorter.sorted(), journal: journal, verbatim: false, variants: variants),
                try ManifestItemStream(path: layout.manifestPath, spill: spill),
            ]
            let merge = ManifestMerge(policy: .init(precedence: .firstInput, reconcile: reconcile))
            try AtomicFile.streamThrowing(to: layout.manifestPath) { out in
                var writer = ManifestWriter(generatedAt: Date())
                _ = try merge.run(&inputs) { item in try writer.append(item, to: &out) }
                try writer.finish(run: header?.run, to: &out)
            }
            try journal.remove()
        } catch {
            if let damage = DamagedManifest.from(error, manifestPaths: [layout.manifestPath]) {
                throw SetupError.damagedManifest(damage)
            }
            throw SetupError.output("cannot fold the journal into the manifest: \(error)")
        }
    }
}
