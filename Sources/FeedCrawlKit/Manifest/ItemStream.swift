#if canImport(Glibc)
import Glibc
#endif
import FeedCrawlSupport

/// An item read from a manifest or a journal, with its line when that is already `ItemJSON`'s
/// text (then it is copied to the new manifest as it is, without encoding it again).
struct StreamItem {
    var item: ManifestItem
    var line: [UInt8]?
}

/// Items in manifest order (`ManifestItem.stableOrder`), each key once, read one at a time.
protocol ItemStream {
    mutating func next() throws(ManifestStore.Error) -> StreamItem?
}

/// The items of a manifest file in manifest order. A version-2 file written by feedcrawl is
/// read straight through; a version-1 file (sorted by page), or one out of order, is read
/// through an `ItemSorter` (its keys in bounded memory, then each item by `pread`).
final class ManifestItemStream: ItemStream {
    private var reader: ManifestReader?
    private var sorted: ItemSorter.Merged?
    private var fd: Int32 = -1
    private let path: String
    private var variants = ManifestItemV1.Variants()
    private var last: ItemKey?

    /// The header of the file (`run` is complete once the stream has ended).
    private(set) var header: ManifestHeader?

    /// Opens `path` (a missing file is an empty stream); `spill` holds the sort runs if one is
    /// needed. `sorted` says whether its items are known to be in order (nil: find out first,
    /// reading the file once more).
    init(path: String, spill: Spill?, sorted known: Bool? = nil) throws(ManifestStore.Error) {
        self.path = path
        guard let reader = try ManifestReader.open(path: path) else { return }
        header = reader.header
        variants = reader.variants
        var inOrder = false
        if reader.header.version >= 2 {
            if let known { inOrder = known } else { inOrder = try Self.isSorted(path: path) }
        }
        if inOrder {
            self.reader = reader
            return
        }
        // Sort the keys, then read the items by location.
        let sorter = ItemSorter(order: .key, spill: spill)
        while let (item, location) = try reader.next() {
            sorter.add(source: item.source, id: item.id, page: item.page, location: location)
        }
        header = reader.header
        sorted = sorter.sorted()
        do { fd = try FileIO.open(path, O_RDONLY) } catch { throw .io(error) }
    }

    /// Whether the items of a version-2 file are in manifest order, each key once (one pass
    /// reading only the keys would cost as much as reading the items, so this reads them).
    static func isSorted(path: String) throws(ManifestStore.Error) -> Bool {
        guard let reader = try ManifestReader.open(path: path) else { return true }
        var last: ItemKey?
        while let (item, _) = try reader.next() {
            let key = item.key
            if let last, !(last < key) { return false }
            last = key
        }
        return true
    }

    func next() throws(ManifestStore.Error) -> StreamItem? {
        if let reader {
            guard let (item, _) = try reader.next() else {
                header = reader.header
                return nil
            }
            let key = item.key
            if let last, !(last < key) {
                throw .corrupt(path: path, reason: "items out of order at \(item.source)/\(item.id)")
            }
            last = key
            // Written anew (not copied): a hand-edited line may hold a stale status or extra keys.
            return StreamItem(item: item, line: nil)
        }
        while let entry = sorted?.next() {
            let key = ItemKey(source: entry.source, id: entry.id)
            if let last, last == key { continue }  // a repeated key: the first wins
            last = key
            let location = entry.location
            do {
                let item = try FileIO.readAt(fd, offset: location.offset, count: location.length, path: path) {
                    bytes in try ItemJSON.decode(bytes, v1: variants)
                }
                return StreamItem(item: item, line: nil)
            } catch let error as ItemJSON.DecodeError {
                throw .corrupt(path: path, reason: "item at byte \(location.offset): \(error.description)")
            } catch let error as FileSystemError {
                throw .io(error)
            } catch {
                throw .corrupt(path: path, reason: "\(error)")
            }
        }
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        return nil
    }
}

/// This run's items (or a journal's) in manifest order, read back from the journal: each key
/// once (the listing on the lowest page, then the last recorded).
struct RunItemStream: ItemStream {
    private var entries: ItemSorter.Merged
    private let journal: Journal
    private var pending: ItemSorter.Entry?
    private let variants: ManifestItemV1.Variants
    private let verbatim: Bool

    /// With `verbatim` (this run's own journal) each line is copied as it is; otherwise (a
    /// journal left by a killed run, maybe of version 1) items are written anew.
    init(entries: ItemSorter.Merged, journal: Journal, verbatim: Bool, variants: ManifestItemV1.Variants = .init()) {
        self.entries = entries
        self.journal = journal
        self.verbatim = verbatim
        self.variants = variants
        pending = self.entries.next()
    }

    mutating func next() throws(ManifestStore.Error) -> StreamItem? {
        guard var entry = pending else {
            if entries.failed {
                throw .io(FileSystemError("read", path: journal.path + " (the sorted keys of the run's items)", code: EIO))
            }
            return nil
        }
        pending = entries.next()
        // A key recorded twice (a feed that shifted while it was paged): the listing on the
        // lowest page wins, so the choice does not depend on timing; on the same page (a
        // journal's later line for the same item) the last recorded.
        while let following = pending, following.source.utf8.elementsEqual(entry.source.utf8),
              following.id.utf8.elementsEqual(entry.id.utf8) {
            if following.page <= entry.page { entry = following }
            pending = entries.next()
        }
        do {
            return try journal.withLine(at: entry.location) { bytes in
                StreamItem(item: try ItemJSON.decode(bytes, v1: variants), line: verbatim ? Array(bytes) : nil)
            }
        } catch {
            throw .corrupt(path: journal.path, reason: "line at byte \(entry.location.offset): \(error)")
        }
    }
}
