import FeedCrawlSupport

/// A backend that changes nothing (restic's `dryrun`): saves and removes are reported through
/// `report` ("would save OUT/archive/tables/….groups (1.2 KiB)", "would remove
/// OUT/cache/ab/….jpg") and not done (a staged body is discarded); everything else (`load`,
/// `stat`, `list`, `lock`, `stage`) goes to the base. For `feedcrawl forget --dry-run`.
final class DryRunBackend: BackendWrapper {
    /// The backend wrapped.
    let base: any Backend
    /// Hears each save and remove not made.
    private let report: @Sendable (String) -> Void

    /// `base`, read but never changed; `report` hears each save and remove it would have made.
    init(_ base: any Backend, report: @escaping @Sendable (String) -> Void) {
        self.base = base
        self.report = report
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        let size = staged.size
        staged.discard()
        report("would save \(location(handle)) (\(Self.bytes(size)))")
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        report("would save \(location(handle)) (\(Self.bytes(Int64(bytes.count))))")
    }

    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        for request in batch {
            switch request.body {
            case .bytes(let bytes):
                report("would save \(location(request.handle)) (\(Self.bytes(Int64(bytes.count))))")
            case .staged(let staged):
                let size = staged.size
                staged.discard()
                report("would save \(location(request.handle)) (\(Self.bytes(size)))")
            }
        }
        return [BackendError?](repeating: nil, count: batch.count)
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        report("would remove \(location(handle))")
    }

    /// A size people read (`ByteSize.format`: `512 B`, `1.2 KiB`).
    private static func bytes(_ count: Int64) -> String {
        ByteSize.format(count)
    }
}
