/// The folders feed responses are kept in: the page cache (`OUT/pages`), the recording
/// (`--record DIR`) and the replay source (`--replay DIR`).
struct FeedStores: Sendable {
    /// `OUT/pages`.
    static let pagesDirectoryName = "pages"

    let pageCache: FeedExchangeStore
    let recording: FeedExchangeStore?
    let replay: FeedExchangeStore?
    let refresh: Bool

    init(configuration: CrawlConfiguration, layout: CacheLayout) {
        let fileBytes = FeedExchangeStore.maxFileBytes(pageBytes: configuration.maxPageBytes)
        pageCache = FeedExchangeStore(root: layout.absolutePath(Self.pagesDirectoryName), maxFileBytes: fileBytes)
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
