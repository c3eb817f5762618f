import FeedCrawlStorage

/// What OUT holds besides the images, by kind, in bytes as the store reports each file's size:
/// the archive's own files (`archive/`: segments, tables, indexes, copies of the root, intents),
/// the kept feed pages (`pages/`), the contact sheet's pages and the small files at OUT's top
/// (the root `manifest.json`, shards' parts). `--cache-max` counts these on top of the images the
/// root names (`RepositoryRoot.Totals.bytes`): the budget is what OUT takes, not only its images.
///
/// Not counted: the file system's own costs (a file takes whole blocks: on ext4 a 600-byte image
/// takes 4 KiB; the 256 fan-out folders of `OUT/cache` take 4 KiB each; `du` counts both) and
/// what is not the archive's (anything a person put
/// under OUT, the log and metrics files when they are elsewhere).
public struct ArchiveFootprint: Sendable, Equatable, Codable {
    public var archive: Int64 = 0
    public var pages: Int64 = 0
    public var sheet: Int64 = 0
    public var state: Int64 = 0

    public init(archive: Int64 = 0, pages: Int64 = 0, sheet: Int64 = 0, state: Int64 = 0) {
        self.archive = archive
        self.pages = pages
        self.sheet = sheet
        self.state = state
    }

    /// Every byte counted.
    public var total: Int64 { archive + pages + sheet + state }

    /// One listing of each kind on `backend` (a few thousand files at a million items: the sheet's
    /// pages are the most; the cache is never walked). A file listed without its size is
    /// `stat`ed. Throws the store's error when a listing fails.
    static func measure(_ backend: any Backend) async throws(BackendError) -> ArchiveFootprint {
        var footprint = ArchiveFootprint()
        for kind in [FileKind.archive, .page, .sheet, .state] {
            var bytes: Int64 = 0
            var unsized: [FileHandle] = []
            try await backend.list(kind, prefix: "") { page in
                for info in page {
                    if let size = info.size { bytes += size } else { unsized.append(info.handle) }
                }
            }
            for handle in unsized { bytes += ((try? await backend.stat(handle)) ?? nil)?.size ?? 0 }
            switch kind {
            case .archive: footprint.archive = bytes
            case .page: footprint.pages = bytes
            case .sheet: footprint.sheet = bytes
            default: footprint.state = bytes
            }
        }
        return footprint
    }
}
