import FeedCrawlStorage
/// Where feed responses are kept: the page cache (`OUT/pages`, through the archive's backend),
/// the recording (`--record DIR`) and the replay source (`--replay DIR`), folders of their own.
struct FeedStores: Sendable {
    let pageCache: KeptPages
    let recording: FeedExchangeStore?
    let replay: FeedExchangeStore?
    let refresh: Bool

    init(configuration: CrawlConfiguration, backend: any Backend) {
        let fileBytes = FeedExchangeStore.maxFileBytes(pageBytes: configuration.maxPageBytes)
        pageCache = KeptPages(backend: backend, maxFileBytes: fileBytes)
        recording = configuration.recordDirectory.map { FeedExchangeStore(root: $0, maxFileBytes: fileBytes) }
        replay = configuration.replayDirectory.map { FeedExchangeStore(root: $0, maxFileBytes: fileBytes) }
        refresh = configuration.refreshPages
    }

    /// The client setup for `source`.
    func setup(for source: SourceConfiguration) -> FeedClient.Setup {
        FeedClient.Setup(
            pageTTL: source.pageTTL, refresh: refresh, pageCache: pageCache, recording: recording, replay: replay)
    }
}
