import Glibc
import FeedCrawlSupport

extension Crawler {
    /// The run's `CrawlStorage`: reserves room for the final manifest (the previous one's size
    /// plus a margin) before anything is fetched. A device already too full for that stops the
    /// run here, before it changes anything.
    static func makeStorage(
        _ layout: CacheLayout, configuration: CrawlConfiguration, events: @escaping @Sendable (CrawlEvent) -> Void
    ) throws -> CrawlStorage {
        var info = stat()
        let previousBytes = stat(layout.manifestPath, &info) == 0 ? Int64(info.st_size) : 0
        do throws(FileSystemError) {
            // Room a source's items may need beyond the usual (launch details), reserved per item.
            return try CrawlStorage(
                layout: layout, previousManifestBytes: previousBytes,
                perItemExtra: configuration.sources.map(\.feed.manifestAllowance).max() ?? 0
            ) { message in
                events(.warning(source: "", message: message))
            }
        } catch {
            throw SetupError.output(
                "\(error.reason): cannot reserve room for the manifest in \(layout.outDirectory) "
                    + "(\(error.path)); nothing was fetched. Free some space and run again")
        }
    }
}
