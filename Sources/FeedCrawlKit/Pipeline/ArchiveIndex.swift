#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import FeedCrawlSupport

/// What earlier runs stored: every image of the previous manifest that has a file in the cache,
/// by its cache key, with where its item's line is in that manifest, so a run reuses (`fresh`),
/// revalidates or keeps an earlier copy without holding the archive in memory: 24 bytes per
/// archived image, and a `pread` of one line when an image is looked up.
final class ArchiveIndex: @unchecked Sendable {
    /// One archived image with a file. Sorted by `key`.
    struct Entry {
        /// The cache key's first 64 bits with the low 2 bits replaced by `source`.
        var key: UInt64
        /// Where its item's line is in the manifest `source`.
        var location: UInt64
        /// `fetchedAt`, whole seconds since 1970 (0 when unknown).
        var fetchedAt: UInt32
        /// Recorded size in bytes (clamped).
        var bytes: UInt32
    }

    private var entries: [Entry]
    /// Open descriptors and paths of the manifests the entries point into.
    private let sources: [(fd: Int32, path: String)]
    private let variants: [ManifestItemV1.Variants]
    /// Per manifest read: whether its items were in manifest order, each key once.
    let inOrder: [String: Bool]

    /// An empty index.
    init() {
        entries = []
        sources = []
        variants = []
        inOrder = [:]
    }

    /// Reads the manifests at `paths` (missing ones are skipped; at most 4) once each.
    init(paths: [String]) throws(ManifestStore.Error) {
        var entries: [Entry] = []
        // Room for one entry per 128 bytes of manifest: more than there can be, so the array
        // never grows by copying (pages never written are never resident).
        var room = 0
        for path in paths.prefix(4) {
            var info = stat()
            if stat(path, &info) == 0 { room += Int(info.st_size) / 128 + 64 }
        }
        entries.reserveCapacity(room)
        var sources: [(fd: Int32, path: String)] = []
        var variants: [ManifestItemV1.Variants] = []
        var inOrder: [String: Bool] = [:]
        for path in paths.prefix(4) {
            guard let reader = try ManifestReader.open(path: path) else { continue }
            let fd: Int32
            do { fd = try FileIO.open(path, O_RDONLY) } catch { throw .io(error) }
            let source = UInt64(sources.count)
            sources.append((fd, path))
            variants.append(reader.variants)
            var last: ItemKey?
            var sorted = reader.header.version >= 2
            while let (item, location) = try reader.next() {
                let key = item.key
                if let previous = last, !(previous < key) { sorted = false }
                last = key
                for image in item.images {
                    guard let file = image.file, let key = CacheKey(file: file) else { continue }
                    let fetched = image.fetchedAt.map { UInt32(clamping: Int64($0.timeIntervalSince1970)) } ?? 0
                    entries.append(Entry(
                        key: key.prefix & ~3 | source, location: location.raw, fetchedAt: fetched,
                        bytes: UInt32(clamping: image.bytes ?? 0)))
                }
            }
            inOrder[path] = sorted
        }
        // In place: the standard sort's merge buffer would hold half as many entries again
        // (12 MiB more for a million images, at the start of a warm run).
        entries.withUnsafeMutableBufferPointer { Self.sortInPlace($0) }
        self.entries = entries
        self.sources = sources
        self.variants = variants
        self.inOrder = inOrder
    }

    deinit {
        for source in sources { close(source.fd) }
    }

    /// Sorts by key, then location (so the entries of one key are in the order they were read),
    /// with no buffer: a quicksort (median of three, the shorter side first, so the stack stays
    /// small), insertion sort for short ranges, and a heapsort should a range split badly too
    /// often.
    static func sortInPlace(_ entries: UnsafeMutableBufferPointer<Entry>) {
        func less(_ a: Entry, _ b: Entry) -> Bool {
            a.key != b.key ? a.key < b.key : a.location < b.location
        }
        func insertion(_ low: Int, _ high: Int) {
            guard high - low > 1 else { return }
            for index in (low + 1)..<high {
                let entry = entries[index]
                var slot = index
                while slot > low, less(entry, entries[slot - 1]) {
                    entries[slot] = entries[slot - 1]
                    slot -= 1
                }
                entries[slot] = entry
            }
        }
        func heapsort(_ low: Int, _ high: Int) {
            let count = high - low
            func sift(_ start: Int, _ end: Int) {
                var root = start
                while 2 * root + 1 < end {
                    var child = 2 * root + 1
                    if child + 1 < end, less(entries[low + child], entries[low + child + 1]) { child += 1 }
                    guard less(entries[low + root], entries[low + child]) else { return }
                    entries.swapAt(low + root, low + child)
                    root = child
                }
            }
            for start in stride(from: count / 2 - 1, through: 0, by: -1) { sift(start, count) }
            for end in stride(from: count - 1, to: 0, by: -1) {
                entries.swapAt(low, low + end)
                sift(0, end)
            }
        }
        var low = 0, high = entries.count
        var budget = 2 * (Int.bitWidth - entries.count.leadingZeroBitCount)
        var stack: [(Int, Int, Int)] = []
        while true {
            if high - low <= 16 {
                insertion(low, high)
            } else if budget == 0 {
                heapsort(low, high)
            } else {
                // Median of three to the front, then Hoare's partition around it.
                let mid = low + (high - low) / 2, last = high - 1
                if less(entries[mid], entries[low]) { entries.swapAt(mid, low) }
                if less(entries[last], entries[low]) { entries.swapAt(last, low) }
                if less(entries[last], entries[mid]) { entries.swapAt(last, mid) }
                entries.swapAt(low, mid)
                let pivot = entries[low]
                var i = low, j = high
                while true {
                    repeat { i += 1 } while i < high && less(entries[i], pivot)
                    repeat { j -= 1 } while less(pivot, entries[j])
                    if i >= j { break }
                    entries.swapAt(i, j)
                }
                entries.swapAt(low, j)
                // [low, j) and [j + 1, high): the longer waits, the shorter goes next.
                let left = (low, j), right = (j + 1, high)
                budget -= 1
                if j - low < high - (j + 1) {
                    stack.append((right.0, right.1, budget))
                    (low, high) = left
                } else {
                    stack.append((left.0, left.1, budget))
                    (low, high) = right
                }
                continue
            }
            guard let next = stack.popLast() else { return }
            (low, high, budget) = next
        }
    }

    /// Archived images.
    var count: Int { entries.count }

    /// Bytes of the archived files, each file counted once.
    var totalBytes: Int64 {
        var total: Int64 = 0
        var last: UInt64?
        for entry in entries where entry.key >> 2 != last {
            last = entry.key >> 2
            total += Int64(entry.bytes)
        }
        return total
    }

    /// The newest record of the file `key` names, as the archive holds it, with its URL; nil
    /// when the archive has no copy (or its line cannot be read back).
    func record(_ key: CacheKey) -> ImageRecord? {
        // The first entry with this key's 62 bits, then the newest of those.
        let wanted = key.prefix >> 2
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].key >> 2 < wanted { low = mid + 1 } else { high = mid }
        }
        var best: Entry?
        var index = low
        while index < entries.count, entries[index].key >> 2 == wanted {
            if best.map({ entries[index].fetchedAt > $0.fetchedAt }) ?? true { best = entries[index] }
            index += 1
        }
        guard let best else { return nil }
        let source = Int(best.key & 3)
        let location = ItemLocation(raw: best.location)
        let item = try? FileIO.readAt(
            sources[source].fd, offset: location.offset, count: location.length, path: sources[source].path
        ) { bytes in try ItemJSON.decode(bytes, v1: variants[source]) }
        return item?.images.first { $0.file.map { CacheKey(file: $0)?.hex == key.hex } ?? false }
    }
}
