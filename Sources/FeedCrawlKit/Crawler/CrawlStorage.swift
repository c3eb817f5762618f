import FeedCrawlStorage
import FeedCrawlSupport

/// Keeps a crawl honest about its output device filling up.
///
/// - Holds room (`Backend.reserve`, on a store that can fill up) at least as large as what the
///   run must still write at its end: the journal and the archive's tables for every item
///   admitted so far (`admit(_:)`, called per feed page before its items are registered), plus a
///   margin for the root.
/// - Notices the device is full: a reservation that cannot grow, or a save that fails with
///   `.full` (ENOSPC, EDQUOT, EROFS) (`noteWriteFailure`). From then on no image is fetched and
///   no further page is admitted; `problem` says what happened, naming the path.
/// - `releaseForFinalWrite()` gives the reserved room back just before the end of the run saves.
///
/// Thread-safe.
final class CrawlStorage: @unchecked Sendable {
    /// Reserved on top of the items' estimates, for the root and the tables' framing.
    static let margin: Int64 = 64 << 10
    /// The reserve grows in steps of this much beyond what is needed, to keep calls rare.
    static let step: Int64 = 256 << 10
    /// The reservation's name: `OUT/.manifest-reserve` (a shard's: `OUT/shards/N/K/.manifest-reserve`,
    /// so that shards on one folder hold a reserve each).
    static let reserveName = ".manifest-reserve"

    private let lock = Lock()
    private var reserve: (any SpaceReservation)?
    private var needed: Int64
    private var fullProblem: String?
    private let location: String
    private let perItemExtra: Int64

    /// Reserves room for `startBytes` plus the margin on `backend`, under `state` (`""`, or a
    /// shard's `shards/N/K/`; nothing on a store that
    /// cannot fill up). Throws the `BackendError` when the device is already too full for that;
    /// other reservation errors leave the crawl running without a reserve and are passed to
    /// `warn`. `perItemExtra` is added to every item's estimate (room for launch details when
    /// that source fetches them).
    init(
        backend: any Backend, state: String = "", startBytes: Int64 = 0, perItemExtra: Int64 = 0, warn: (String) -> Void
    ) throws(BackendError) {
        let handle = FileHandle(.state, state + Self.reserveName)!
        location = backend.location(handle)
        self.perItemExtra = max(perItemExtra, 0)
        needed = max(startBytes, 0) + Self.margin
        do {
            reserve = try backend.reserve(handle)
            try reserve?.grow(to: needed)
        } catch {
            reserve?.release()
            reserve = nil
            if error.kind == .full { throw error }
            warn("cannot reserve space for the archive's final writes (\(error)); continuing without a reserve")
        }
    }

    /// Why the run stopped writing, if it did (names the problem and the path).
    var problem: String? { lock.withLock { fullProblem } }

    /// What an item that was not fetched because of `problem` records as its error.
    var itemError: String? {
        lock.withLock { fullProblem == nil ? nil : "not fetched: the output device is full or read-only" }
    }

    /// Reserves room for `items` in the final writes. False when the device is full: the caller
    /// must then drop the page (it is not recorded) and stop its source.
    func admit(_ items: [FeedItem]) -> Bool {
        lock.withLock {
            guard fullProblem == nil else { return false }
            let total = needed + items.reduce(Int64(0)) { $0 + Self.estimatedBytes($1) + perItemExtra }
            if let reserve, total > reserve.bytes {
                do throws(BackendError) {
                    do throws(BackendError) {
                        try reserve.grow(to: total + Self.step)
                    } catch where error.kind == .full {
                        try reserve.grow(to: total)
                    }
                } catch {
                    if error.kind == .full {
                        fullProblem = "\(error.reason): cannot reserve room for the archive in \(location); "
                            + "stopped crawling. Free some space and run again"
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

    /// Records a failed save; a `.full` one marks the device as full.
    func noteWriteFailure(_ error: BackendError) {
        guard error.kind == .full else { return }
        lock.withLock {
            guard fullProblem == nil else { return }
            fullProblem = "\(error.reason) writing \(error.location); stopped fetching images. Free some space and run again"
        }
    }

    /// Gives the reserved room back, just before the final writes.
    func releaseForFinalWrite() {
        lock.withLock {
            reserve?.release()
            reserve = nil
        }
    }

    /// An upper estimate of one item's bytes at the end of the run, whatever its outcome: its
    /// journal line (the feed's text, doubled for JSON escapes, plus room for each image's
    /// outcome fields, whose lengths `ImageRecord.Outcome.bounded()` caps) and its index entries.
    static func estimatedBytes(_ item: FeedItem) -> Int64 {
        var text = item.source.utf8.count + item.id.utf8.count + item.title.utf8.count
            + (item.author?.utf8.count ?? 0) + (item.pageURL?.utf8.count ?? 0) + (item.problem?.utf8.count ?? 0)
        for image in item.images { text += image.variant.utf8.count + image.url.utf8.count }
        return Int64(2 * text) + 256 + Int64(item.images.count) * (1_400 + Int64(IndexTable.entryBytes))
            + Int64(IndexTable.entryBytes)
    }
}
