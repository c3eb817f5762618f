import FoundationEssentials
import Glibc
import FeedCrawlSupport

extension Crawler {
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
