import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials

/// The index tables on the backend, read without loading them: a table is a sorted run of
/// `IndexEntry`s with a fence (the first key) per block of `blockEntries`, so a point lookup
/// reads one block (4 KiB) and a merge streams the table a megabyte at a time. Memory stays flat
/// at any archive size.
///
/// File (`archive/tables/<sha256>.items` or `.files`): a 16-byte header (`FCIX`, format 2, the
/// kind, 10 bytes reserved), the entries (24 bytes each, little-endian, sorted by key and newest
/// group first), the fences (8 bytes each), and a 24-byte footer (entry count, where the fences
/// start, `blockEntries`, `FCXE`).
enum IndexFile {
    static let magic: [UInt8] = Array("FCIX".utf8)
    static let footerMagic: [UInt8] = Array("FCXE".utf8)
    static let version: UInt8 = 2
    static let headerBytes = 16
    static let footerBytes = 24
    /// Entries a block holds: 170 × 24 = 4,080 bytes.
    static let blockEntries = 170

    /// Writes sorted entries into a staged body of `backend` for `handle`, with the fences and
    /// the footer; the caller saves it.
    final class Writer {
        private let staged: any StagedFile
        private var buffer: [UInt8] = []
        private var fences: [UInt64] = []
        private(set) var count: Int64 = 0
        private var last: (key: UInt64, group: UInt32)?
        private var hasher = SHA256()

        init(backend: any Backend, handle: FileHandle, kind: IndexTable.Kind) throws {
            staged = try backend.stage(handle)
            buffer.reserveCapacity(1 << 16)
            buffer += magic
            buffer += [version, kind.rawValue]
            buffer += [UInt8](repeating: 0, count: 10)
        }

        /// Appends `entry` (in order: key ascending, newest group first).
        func append(_ entry: IndexEntry) throws {
            if count % Int64(blockEntries) == 0 { fences.append(entry.key) }
            IndexTable.append(entry, to: &buffer)
            count += 1
            if buffer.count >= 1 << 16 { try flush() }
        }

        /// Writes the fences and the footer; returns the staged body and its SHA-256 (hex).
        func finish() throws -> (staged: any StagedFile, sha256: [UInt8]) {
            let fencesAt = Int64(headerBytes) + count * Int64(IndexTable.entryBytes)
            for fence in fences { IndexTable.append64(fence, to: &buffer) }
            IndexTable.append64(UInt64(count), to: &buffer)
            IndexTable.append64(UInt64(fencesAt), to: &buffer)
            IndexTable.append32(UInt32(blockEntries), to: &buffer)
            buffer += footerMagic
            try flush()
            return (staged, hasher.finalize())
        }

        private func flush() throws {
            guard !buffer.isEmpty else { return }
            hasher.update(buffer)
            try buffer.withUnsafeBytes { try staged.write($0) }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// One table on the backend: its footer and fences read once, blocks read on demand (a few
    /// kept).
    final class Reader: @unchecked Sendable {
        let backend: any Backend
        let handle: FileHandle
        let count: Int64
        private let fences: [UInt64]
        private let lock = Lock()
        private var blocks: [Int: [IndexEntry]] = [:]
        private var order: [Int] = []

        /// Opens the table `name` (under `archive/`); throws when it is not one of `kind`'s.
        init(backend: any Backend, name: String, kind: IndexTable.Kind) async throws {
            guard let handle = FileHandle(.archive, name) else { throw IndexTable.Bad(description: "no table \(name)") }
            self.backend = backend
            self.handle = handle
            guard let size = try await backend.stat(handle)?.size, size >= Int64(headerBytes + footerBytes) else {
                throw IndexTable.Bad(description: "index table \(name) is missing or cut short")
            }
            let head = try await backend.load(handle, range: 0..<Int64(headerBytes), maxBytes: Int64(headerBytes))
            guard Array(head[0..<4]) == magic, head[4] == version, head[5] == kind.rawValue else {
                throw IndexTable.Bad(description: "\(name) is not an index table of \(kind.fileExtension)")
            }
            let foot = try await backend.load(handle, range: (size - Int64(footerBytes))..<size, maxBytes: Int64(footerBytes))
            guard Array(foot[20..<24]) == footerMagic else { throw IndexTable.Bad(description: "\(name) has no footer") }
            count = Int64(IndexTable.read64(foot, 0))
            let fencesAt = Int64(IndexTable.read64(foot, 8))
            let expected = (count + Int64(blockEntries) - 1) / Int64(blockEntries)
            guard fencesAt == Int64(headerBytes) + count * Int64(IndexTable.entryBytes),
                  fencesAt + expected * 8 + Int64(footerBytes) == size else {
                throw IndexTable.Bad(description: "\(name)'s footer does not match its size")
            }
            let raw = expected == 0 ? [] : try await backend.load(handle, range: fencesAt..<(fencesAt + expected * 8), maxBytes: expected * 8)
            fences = (0..<Int(expected)).map { IndexTable.read64(raw, $0 * 8) }
        }

        /// The newest entry for `key` in this table, or nil.
        func lookup(_ key: UInt64) async throws -> IndexEntry? {
            // The last block whose first key is not above `key`; entries of one key may start in
            // the block before it (a key's run can cross a block boundary), so look there first.
            var low = 0, high = fences.count
            while low < high {
                let mid = (low + high) / 2
                if fences[mid] < key { low = mid + 1 } else { high = mid }
            }
            // `low`: the first block whose first key is >= key; the run starts in `low - 1` or `low`.
            for block in [low - 1, low] where block >= 0 && block < fences.count {
                let entries = try await self.block(block)
                var first = 0, last = entries.count
                while first < last {
                    let mid = (first + last) / 2
                    if entries[mid].key < key { first = mid + 1 } else { last = mid }
                }
                if first < entries.count, entries[first].key == key { return entries[first] }
                if first < entries.count { return nil }  // passed it
            }
            return nil
        }

        private func block(_ index: Int) async throws -> [IndexEntry] {
            if let cached = lock.withLock({ blocks[index] }) { return cached }
            let start = Int64(headerBytes) + Int64(index * blockEntries) * Int64(IndexTable.entryBytes)
            let n = min(Int64(blockEntries), count - Int64(index * blockEntries))
            let bytes = try await backend.load(handle, range: start..<(start + n * Int64(IndexTable.entryBytes)), maxBytes: n * 24)
            let entries = (0..<Int(n)).map { IndexTable.entry(bytes, $0 * IndexTable.entryBytes) }
            lock.withLock {
                blocks[index] = entries
                order.append(index)
                if order.count > 256 { blocks.removeValue(forKey: order.removeFirst()) }
            }
            return entries
        }

        /// The entries in order, a chunk (about 1 MiB) at a time.
        func stream() -> EntryStream { .table(self) }
    }
}

/// Entries a work adds to an index (its groups' items or files), kept as they come in a scratch
/// file under `$TMPDIR`, then sorted in chunks of `chunkEntries` (each written back sorted, a
/// run) and read back a megabyte at a time for the merge: memory stays flat however many there
/// are. Thread-safe.
final class IndexSpill: @unchecked Sendable {
    /// Entries sorted in memory at once (65,536: 1.5 MiB).
    static let chunkEntries = 65_536

    private let lock = Lock()
    private let spill: Spill?
    private let runsFile: Spill?
    private var memory: [IndexEntry] = []
    private var written: Int64 = 0

    /// Its two files are anonymous (`Spill`): nothing is left under `$TMPDIR` when the process
    /// ends, however it ends.
    init() {
        spill = Spill(directory: ScratchFolder.temporaryDirectory)
        runsFile = Spill(directory: ScratchFolder.temporaryDirectory)
    }

    /// Entries added.
    var count: Int64 { lock.withLock { written + Int64(memory.count) } }

    /// Forgets every entry (they are in the tables now).
    func clear() {
        lock.withLock {
            memory.removeAll()
            written = 0
            spill?.truncate()
            runsFile?.truncate()
        }
    }

    func append(_ entries: [IndexEntry]) {
        lock.withLock {
            memory += entries
            if memory.count >= 8192, let spill { flushLocked(spill) }
        }
    }

    private func flushLocked(_ spill: Spill) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(memory.count * IndexTable.entryBytes)
        for entry in memory { IndexTable.append(entry, to: &bytes) }
        if spill.append(bytes) != nil {
            written += Int64(memory.count)
            memory.removeAll(keepingCapacity: true)
        }
    }

    /// The entries as sorted runs (each sorted by key, newest group first), streams to merge.
    func sortedRuns() -> [EntryStream] {
        lock.withLock {
            var runs: [EntryStream] = []
            if let spill, let runsFile, written > 0 {
                var offset: Int64 = 0
                while offset < written {
                    let n = min(Int64(Self.chunkEntries), written - offset)
                    guard let bytes = spill.read(at: offset * 24, count: Int(n) * 24) else { break }
                    var chunk = (0..<Int(n)).map { IndexTable.entry(bytes, $0 * IndexTable.entryBytes) }
                    chunk.sort(by: IndexEntry.precedes)
                    var out: [UInt8] = []
                    out.reserveCapacity(chunk.count * 24)
                    for entry in chunk { IndexTable.append(entry, to: &out) }
                    if let at = runsFile.append(out) {
                        runs.append(.spilled(file: runsFile, start: at / 24, count: n))
                    } else {
                        runs.append(.memory(chunk))
                    }
                    offset += n
                }
            }
            if !memory.isEmpty { runs.append(.memory(memory.sorted(by: IndexEntry.precedes))) }
            return runs
        }
    }
}

/// Where a merge reads sorted entries from: a table on the backend, a run in a scratch file, or
/// memory.
struct EntryStream {
    private enum Source {
        case table(IndexFile.Reader)
        case file(Spill)
        case memory([IndexEntry])
    }

    private let source: Source
    private var next: Int64
    private let end: Int64
    private var buffer: [IndexEntry] = []
    private var position = 0

    static func table(_ reader: IndexFile.Reader) -> EntryStream {
        EntryStream(source: .table(reader), next: 0, end: reader.count)
    }

    static func spilled(file: Spill, start: Int64, count: Int64) -> EntryStream {
        EntryStream(source: .file(file), next: start, end: start + count)
    }

    static func memory(_ entries: [IndexEntry]) -> EntryStream {
        EntryStream(source: .memory(entries), next: 0, end: Int64(entries.count))
    }

    private init(source: Source, next: Int64, end: Int64) {
        self.source = source
        self.next = next
        self.end = end
    }

    /// The next entry, or nil at the end.
    mutating func pop() async throws -> IndexEntry? {
        if position == buffer.count {
            guard next < end else { return nil }
            let n = min(Int64(4096), end - next)
            switch source {
            case .memory(let entries):
                buffer = Array(entries[Int(next)..<Int(next + n)])
            case .file(let spill):
                guard let bytes = spill.read(at: next * 24, count: Int(n) * 24) else {
                    throw IndexTable.Bad(description: "cannot read back a scratch file")
                }
                buffer = (0..<Int(n)).map { IndexTable.entry(bytes, $0 * IndexTable.entryBytes) }
            case .table(let reader):
                let start = Int64(IndexFile.headerBytes) + next * Int64(IndexTable.entryBytes)
                let bytes = try await reader.backend.load(reader.handle, range: start..<(start + n * 24), maxBytes: n * 24)
                buffer = (0..<Int(n)).map { IndexTable.entry(bytes, $0 * IndexTable.entryBytes) }
            }
            position = 0
            next += n
        }
        defer { position += 1 }
        return buffer[position]
    }
}

/// Merges sorted streams into one sorted sequence (key ascending, newest group first), each
/// entry tagged with the stream it came from.
struct EntryMerge {
    private var streams: [EntryStream]
    private var heads: [IndexEntry?] = []
    private var started = false

    init(_ streams: [EntryStream]) {
        self.streams = streams
    }

    /// The next entry and the index of its stream, or nil at the end.
    mutating func pop() async throws -> (entry: IndexEntry, stream: Int)? {
        if !started {
            started = true
            for index in streams.indices { heads.append(try await streams[index].pop()) }
        }
        var best = -1
        for index in heads.indices {
            guard let head = heads[index] else { continue }
            if best < 0 || IndexEntry.precedes(head, heads[best]!) { best = index }
        }
        guard best >= 0, let entry = heads[best] else { return nil }
        heads[best] = try await streams[best].pop()
        return (entry, best)
    }
}
