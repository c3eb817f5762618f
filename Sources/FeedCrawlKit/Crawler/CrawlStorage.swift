import Glibc
import FeedCrawlSupport

/// Keeps a crawl honest about its output device filling up.
///
/// - Holds a `ManifestReserve` at least as large as the manifest the run will write: the
///   previous manifest plus an estimate for every item admitted so far (`admit(_:)`, called
///   per feed page before its items are registered), plus a margin for the run record.
/// - Notices the device is full: a reservation that cannot grow, or an image write that fails
///   with ENOSPC, EDQUOT or EROFS (`noteWriteFailure`). From then on no image is fetched and no
///   further page is admitted; `problem` says what happened, naming the path.
/// - `releaseForFinalWrite()` gives the reserved space back just before the manifest is saved.
///
/// Thread-safe.
final class CrawlStorage: @unchecked Sendable {
    /// Reserved on top of the items' estimates, for the run record and JSON framing.
    static let margin: Int64 = 64 << 10
    /// The reserve grows in steps of this much beyond what is needed, to keep calls rare.
    static let step: Int64 = 256 << 10

    private let lock = Lock()
    private var reserve: ManifestReserve?
    private var needed: Int64
    private var fullProblem: String?
    private let outDirectory: String
    private let perItemExtra: Int64

    /// Reserves room for a manifest of `previousManifestBytes` plus the margin. Throws the
    /// `FileSystemError` when the device is already too full for that; other reservation errors
    /// (a file system that cannot allocate) leave the crawl running without a reserve and are
    /// passed to `warn`. `perItemExtra` is added to every item's estimate (room for launch
    /// details when that source fetches them).
    init(
        layout: CacheLayout, previousManifestBytes: Int64, perItemExtra: Int64 = 0, warn: (String) -> Void
    ) throws(FileSystemError) {
        outDirectory = layout.outDirectory
        self.perItemExtra = max(perItemExtra, 0)
        needed = max(previousManifestBytes, 0) + Self.margin
        do {
            let reserve = try ManifestReserve(path: Self.reservePath(layout))
            self.reserve = reserve
            try reserve.ensure(needed)
        } catch {
            reserve?.release()
            reserve = nil
            if Self.meansFull(error.code) { throw error }
            warn("cannot reserve space for the manifest (\(error)); continuing without a reserve")
        }
    }

    /// `OUT/.manifest-reserve`.
    static func reservePath(_ layout: CacheLayout) -> String {
        layout.statePath(ManifestReserve.fileName)
    }

    /// Deletes a reserve a killed run left behind (before the previous manifest is folded).
    static func removeLeftoverReserve(_ layout: CacheLayout) {
        unlink(reservePath(layout))
    }

    /// Why the run stopped writing, if it did (names the problem and the path).
    var problem: String? { lock.withLock { fullProblem } }

    /// What an item that was not fetched because of `problem` records as its error.
    var itemError: String? {
        lock.withLock { fullProblem == nil ? nil : "not fetched: the output device is full or read-only" }
    }

    /// Reserves room for `items` in the final manifest. False when the device is full: the
    /// caller must then drop the page (it is not recorded) and stop its source.
    func admit(_ items: [FeedItem]) -> Bool {
        lock.withLock {
            guard fullProblem == nil else { return false }
            let total = needed + items.reduce(Int64(0)) { $0 + Self.estimatedBytes($1) + perItemExtra }
            if let reserve, total > reserve.reservedBytes {
                do throws(FileSystemError) {
                    do throws(FileSystemError) {
                        try reserve.ensure(total + Self.step)
                    } catch where Self.meansFull(error.code) {
                        try reserve.ensure(total)
                    }
                } catch {
                    if Self.meansFull(error.code) {
                        fullProblem = "\(error.reason): cannot reserve room for the manifest in \(outDirectory) "
                            + "(\(reserve.path)); stopped crawling. Free some space and run again"
                        return false
                    }
                    // Not a space problem: carry on as without a reserve.
                    reserve.release()
                    self.reserve = nil
                }
            }
            needed = total
            return true
        }
    }

    /// Records a failed write; ENOSPC, EDQUOT and EROFS mark the device as full.
    func noteWriteFailure(path: String, code: Int32) {
        guard Self.meansFull(code) else { return }
        lock.withLock {
            guard fullProblem == nil else { return }
            fullProblem = "\(FileSystemError.reason(for: code)) writing \(path); stopped fetching images. "
                + "Free some space and run again"
        }
    }

    /// Gives the reserved space back, just before the manifest is written.
    func releaseForFinalWrite() {
        lock.withLock {
            reserve?.release()
            reserve = nil
        }
    }

    /// Whether an errno means no more data can be written to the device.
    static func meansFull(_ code: Int32) -> Bool {
        code == ENOSPC || code == EDQUOT || code == EROFS
    }

    /// An upper estimate of one item's bytes in the manifest, whatever its outcome: the feed's
    /// text (doubled, for JSON escapes) plus room for each image's outcome fields, whose lengths
    /// `ImageRecord.Outcome.bounded()` caps.
    static func estimatedBytes(_ item: FeedItem) -> Int64 {
        var text = item.source.utf8.count + item.id.utf8.count + item.title.utf8.count
            + (item.author?.utf8.count ?? 0) + (item.pageURL?.utf8.count ?? 0) + (item.problem?.utf8.count ?? 0)
        for image in item.images { text += image.variant.utf8.count + image.url.utf8.count }
        return Int64(2 * text) + 256 + Int64(item.images.count) * 1_400
    }
}
