import Glibc

extension Crawler {
    /// Room launch details take in an item of the manifest (rocket, site, the large patch's URL
    /// and outcome), reserved per item when a launches source fetches details.
    static let launchDetailsAllowance: Int64 = 2_048

    /// The run's `CrawlStorage`: reserves room for the final manifest (the previous one's size
    /// plus a margin) before anything is fetched. A device already too full for that stops the
    /// run here, before it changes anything.
    static func makeStorage(
        _ layout: CacheLayout, configuration: CrawlConfiguration, events: @escaping @Sendable (CrawlEvent) -> Void
    ) throws -> CrawlStorage {
        var info = stat()
        let previousBytes = stat(layout.manifestPath, &info) == 0 ? Int64(info.st_size) : 0
        do throws(FileSystemError) {
            let details = configuration.sources.contains { source in
                if case .launches(let config) = source { return config.details }
                return false
            }
            return try CrawlStorage(
                layout: layout, previousManifestBytes: previousBytes,
                perItemExtra: details ? launchDetailsAllowance : 0
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
