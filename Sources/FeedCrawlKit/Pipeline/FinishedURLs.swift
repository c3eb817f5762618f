/// URLs this run finished, by the first 64 bits of their cache key, with where the outcome is
/// (internal): in a pending item (token and image index) or recorded with its page (the page's
/// token, the item's place on it, the image index). None for images reused from the archive.
///
/// About 17 bytes per URL fetched this run, and no copying growth: the newest places are in a
/// small dictionary (`recent`); once it holds `runLength` of them, its journaled places (final
/// but for a rare refetch) move to a sorted run (keys and places in arrays of exactly their
/// size, with a bucket index so a look-up reads about one cache line of keys). A new run is
/// merged with the one before while that one is less than twice as long, up to
/// `maxRunLength`, so a look-up reads a few runs and a merge copies at most a few MiB. (A hash
/// table of a million URLs held 32 MiB, and 48 MiB while it grew.) Newer places win: `recent`
/// first, then the runs from the newest.
///
/// The runs hold at most `maxPlaces` places (default 524,288: 8 MiB): past that the oldest run
/// is forgotten, so a run of any size holds a bounded set. A URL finished that long ago and
/// met again is fetched again (its cache file is saved again under the same name); a feed
/// lists a URL again mostly within a page or two (an item that moved pages while the run paged
/// through the feed), far inside that window. Pending places are never forgotten.
struct FinishedURLs {
    enum Place: Equatable, Sendable {
        case pending(token: Int, image: Int)
        /// Recorded with its page (`PageRecorder`): the page's token, the item's place on it.
        case recorded(page: Int, item: Int, image: Int)
    }

    /// A recorded place read back (outside the pipeline's lock), with the image found there.
    struct Recorded: Sendable {
        var place: Place
        var image: ImageRecord?
    }

    /// A sorted run: unique keys, their places (raw), and where each bucket of keys starts.
    struct Run {
        var keys: [UInt64]
        var places: [UInt64]
        /// Entries whose key's top `bits` bits are b are at `starts[b] ..< starts[b + 1]`.
        var starts: [UInt32]
        var bits: Int

        init(keys: [UInt64], places: [UInt64]) {
            self.keys = keys
            self.places = places
            // About four keys a bucket.
            var bits = 0
            while bits < 30, 4 << bits < keys.count { bits += 1 }
            self.bits = bits
            var starts = [UInt32](repeating: 0, count: (1 << bits) + 1)
            var position = 0
            for bucket in 0...(1 << bits) {
                while position < keys.count, Self.bucket(keys[position], bits) < bucket { position += 1 }
                starts[bucket] = UInt32(position)
            }
            self.starts = starts
        }

        static func bucket(_ key: UInt64, _ bits: Int) -> Int {
            bits == 0 ? 0 : Int(key >> UInt64(64 - bits))
        }

        var count: Int { keys.count }

        func place(_ key: UInt64) -> UInt64? {
            let bucket = Self.bucket(key, bits)
            var low = Int(starts[bucket]), high = Int(starts[bucket + 1])
            while low < high {
                let mid = (low + high) / 2
                if keys[mid] < key { low = mid + 1 } else { high = mid }
            }
            return low < keys.count && keys[low] == key ? places[low] : nil
        }

        /// `older` and `newer` as one run; on a key both hold, `newer`'s place.
        static func merged(_ older: Run, _ newer: Run) -> Run {
            let total = older.count + newer.count
            var keys: [UInt64] = [], places: [UInt64] = []
            keys.reserveCapacity(total)
            places.reserveCapacity(total)
            var i = 0, j = 0
            while i < older.count || j < newer.count {
                if j == newer.count || (i < older.count && older.keys[i] < newer.keys[j]) {
                    keys.append(older.keys[i])
                    places.append(older.places[i])
                    i += 1
                } else {
                    if i < older.count, older.keys[i] == newer.keys[j] { i += 1 }
                    keys.append(newer.keys[j])
                    places.append(newer.places[j])
                    j += 1
                }
            }
            return Run(keys: keys, places: places)
        }
    }

    /// Places held in `recent` before its journaled ones move to a run; default 32768.
    let runLength: Int
    /// Runs longer than this are not merged further; default 262144 (4 MiB).
    let maxRunLength: Int
    /// Places the runs hold at most; the oldest run goes past it (default 524,288).
    let maxPlaces: Int
    private var recent: [UInt64: UInt64] = [:]
    private var runs: [Run] = []
    /// `recent` moves its journaled places to a run when it holds this many.
    private var flushAt: Int

    /// A place no key has: a key set to nil.
    private static let removed = UInt64.max

    init(runLength: Int = 32768, maxRunLength: Int = 262_144, maxPlaces: Int = 524_288) {
        self.runLength = max(1, runLength)
        self.maxRunLength = max(self.runLength, maxRunLength)
        self.maxPlaces = max(self.maxRunLength, maxPlaces)
        flushAt = self.runLength
    }

    /// Runs held (for tests).
    var runCount: Int { runs.count }

    subscript(key: UInt64) -> Place? {
        get {
            guard let raw = lookUp(key), raw != Self.removed else { return nil }
            let image = Int(raw & 0xFF)
            if raw >> 63 == 1 { return .pending(token: Int((raw & ~(1 << 63)) >> 8), image: image) }
            return .recorded(page: Int(raw >> 32), item: Int((raw >> 8) & 0xFF_FFFF), image: image)
        }
        set {
            switch newValue {
            case nil:
                recent[key] = Self.removed
            case .pending(let token, let image)?:
                recent[key] = 1 << 63 | UInt64(token) << 8 | UInt64(image & 0xFF)
            case .recorded(let page, let item, let image)?:
                recent[key] = UInt64(page & 0x7FFF_FFFF) << 32 | UInt64(item & 0xFF_FFFF) << 8 | UInt64(image & 0xFF)
            }
            if recent.count >= flushAt { flush() }
        }
    }

    private func lookUp(_ key: UInt64) -> UInt64? {
        if let raw = recent[key] { return raw }
        for run in runs.reversed() {
            if let raw = run.place(key) { return raw }
        }
        return nil
    }

    /// Places held in memory (in `recent` and the runs; for tests).
    var inMemory: Int { recent.count + runs.reduce(0) { $0 + $1.count } }

    /// Moves `recent`'s recorded (and removed) places to a new run; pending ones stay.
    private mutating func flush() {
        var moved: [(key: UInt64, place: UInt64)] = []
        moved.reserveCapacity(recent.count)
        var kept: [UInt64: UInt64] = [:]
        for (key, place) in recent {
            if place != Self.removed, place >> 63 == 1 { kept[key] = place } else { moved.append((key, place)) }
        }
        recent = kept
        // Many places pending at once (not the pipeline's bounds): wait for as many more.
        flushAt = kept.count + runLength
        guard !moved.isEmpty else { return }
        moved.sort { $0.key < $1.key }
        var run = Run(keys: moved.map(\.key), places: moved.map(\.place))
        moved = []
        while let last = runs.last, last.count < 2 * run.count, last.count + run.count <= maxRunLength {
            run = Run.merged(runs.removeLast(), run)
        }
        runs.append(run)
        var held = runs.reduce(0) { $0 + $1.count }
        while runs.count > 1, held > maxPlaces {
            held -= runs.removeFirst().count
        }
    }
}
