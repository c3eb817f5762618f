import FeedCrawlStorage
import FeedCrawlSupport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

extension Repository {
    /// Opens the archive at `state`; a version-1 or version-2 manifest there (an earlier
    /// release's OUT) is converted first (`convert`), `note` hearing that it was.
    static func openConverting(
        _ backend: any Backend, state: String, note: @escaping @Sendable (String) -> Void
    ) async throws -> Repository {
        do {
            return try await open(backend, state: state)
        } catch is OlderManifest {
            let converted: String
            do {
                converted = try await convert(backend, state: state)
            } catch let error as ManifestStore.Error {
                // The old manifest does not parse: damaged, like a root that does not (nothing
                // was written: its items are all read before the first group is saved).
                if case .corrupt(_, let reason) = error, !reason.hasPrefix("unsupported manifest version") {
                    throw DamagedRoot(reason: reason)
                }
                throw error
            }
            note(converted)
            return try await open(backend, state: state)
        }
    }

    /// Converts the version-1 or version-2 manifest at `state` (and the journal a killed run of that
    /// release left: `manifest.journal`, or the object store's `journal/…`) into format 3: its
    /// items become groups by source, page and `lastSeen` (the listing each was last seen in),
    /// each with every fact as the old manifest recorded it, so nothing is fetched again. The
    /// old manifest is kept beside the new root as `manifest.v<version>.json`; the old journal
    /// is removed once the new root is saved. Returns what happened, for the run's messages.
    static func convert(_ backend: any Backend, state: String) async throws -> String {
        let rootHandle = rootHandle(state: state)
        let scratch = try ScratchFolder()
        // The old manifest, copied locally a range at a time (read in order, then by place).
        let manifestPath = scratch.path + "/manifest.json"
        let size = try await copy(backend, rootHandle, to: manifestPath)
        guard let reader = try ManifestReader.open(path: manifestPath) else { return "" }
        let header = try ManifestReader.header(path: manifestPath)
        let version = (header ?? reader.header).version
        let variants = ManifestItemV1.Variants(options: header?.run?.options ?? [:])
        // A killed run's journal: newer than the manifest, its items win.
        var journalItems: [ManifestItem] = []
        var journalHandles: [FileHandle] = []
        if let handle = FileHandle(.state, state + CacheLayout.journalFileName),
           let bytes = try? await backend.load(handle, range: nil, maxBytes: 1 << 32) {
            journalItems += ItemJSON.journalLines(bytes, v1: variants).items
            journalHandles.append(handle)
        }
        var shipped: [FileHandle] = []
        try await backend.list(.state, prefix: state + "journal/") { page in shipped += page.map(\.handle) }
        for handle in shipped.sorted(by: { $0.name < $1.name }) where !handle.isPartial {
            if let bytes = try? await backend.load(handle, range: nil, maxBytes: 1 << 30) {
                journalItems += ItemJSON.journalLines(bytes, v1: variants).items
            }
            journalHandles.append(handle)
        }
        var latest: [ItemKey: ManifestItem] = [:]
        for item in journalItems { latest[item.key] = item }

        // Group by source, page and last listing: sorted by page, read back by place.
        let sorter = ItemSorter(order: .page, spill: Spill(directory: scratch.path))
        var lines = 0
        while let (item, location) = try reader.next() {
            guard latest[item.key] == nil else { continue }
            sorter.add(source: item.source, id: item.id, page: item.page, location: location)
            lines += 1
        }
        let fd = try FileIO.open(manifestPath, O_RDONLY)
        defer { close(fd) }
        let journal = RunJournal(
            backend: backend, state: state, started: Int64((Date().timeIntervalSince1970 * 1000).rounded()),
            firstNumber: 1)
        var group: (source: String, page: Int, listed: Int64, items: [ManifestItem])?
        func closeGroup() async throws {
            guard let open = group, !open.items.isEmpty else { return }
            try journal.append(
                source: open.source, page: open.page, digest: nil, recipe: nil, items: open.items, listed: open.listed)
            group = nil
            if journal.flushIsDue { try await journal.flush() }
        }
        func add(_ item: ManifestItem) async throws {
            let listed = Int64(((item.lastSeen ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1000).rounded())
            if let open = group, open.source == item.source, open.page == item.page, open.listed == listed {
                group!.items.append(item)
            } else {
                try await closeGroup()
                group = (item.source, item.page, listed, [item])
            }
        }
        // The journal's items, page by page among the manifest's.
        let extra = latest.values.sorted {
            let order = ManifestItem.compareBytes($0.source.utf8, $1.source.utf8) ?? 0
            if order != 0 { return order < 0 }
            if $0.page != $1.page { return $0.page < $1.page }
            return ManifestItem.compareIDs($0.id, $1.id) < 0
        }
        var next = 0
        var entries = sorter.sorted()
        while let entry = entries.next() {
            while next < extra.count, Self.before(extra[next], entry) {
                try await add(extra[next])
                next += 1
            }
            let item = try FileIO.readAt(fd, offset: entry.location.offset, count: entry.location.length, path: manifestPath) {
                try ItemJSON.decode($0, v1: variants)
            }
            try await add(item)
        }
        while next < extra.count {
            try await add(extra[next])
            next += 1
        }
        try await closeGroup()
        try await journal.flush()

        // The converted archive, then the old manifest kept beside it, then the old journal gone.
        let repository = Repository(
            backend: backend, state: state, root: RepositoryRoot(generatedAt: header?.generatedAt ?? Date()),
            table: GroupTable())
        _ = try await repository.commit(journal: journal, run: header?.run, generatedAt: Date())
        let kept = state + "manifest.v\(version).json"
        if let keptHandle = FileHandle(.state, kept) {
            let staged = try backend.stage(keptHandle)
            try FileIO.readChunks(try FileIO.open(manifestPath, O_RDONLY), path: manifestPath) { try? staged.write($0) }
            try await backend.save(keptHandle, staged: staged, options: SaveOptions())
        }
        for handle in journalHandles { try? await backend.remove(handle) }
        // The journal taken in is said, as that release's `manifest` said it included one.
        let journalNote = latest.isEmpty ? "" : " with the \(latest.count) items of the journal an unfinished run left"
        return "converted the version-\(version) manifest \(backend.location(rootHandle)) (\(lines + extra.count) items, "
            + "\(ByteSize.format(size)))\(journalNote) to the archive format 3; the old manifest is kept as "
            + "\(backend.location(FileHandle(.state, kept) ?? rootHandle))"
    }

    /// Whether `item` (from a journal) comes before `entry` in page order.
    private static func before(_ item: ManifestItem, _ entry: ItemSorter.Entry) -> Bool {
        let order = ManifestItem.compareBytes(item.source.utf8, entry.source.utf8) ?? 0
        if order != 0 { return order < 0 }
        if item.page != entry.page { return item.page < entry.page }
        return ManifestItem.compareIDs(item.id, entry.id) < 0
    }

    /// Copies `handle` into the local file `path`, 8 MiB at a time; returns its size.
    static func copy(_ backend: any Backend, _ handle: FileHandle, to path: String) async throws -> Int64 {
        guard let info = try await backend.stat(handle), let size = info.size else { return 0 }
        let fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        defer { close(fd) }
        var offset: Int64 = 0
        while offset < size {
            let end = min(size, offset + (8 << 20))
            let bytes = try await backend.load(handle, range: offset..<end, maxBytes: end - offset)
            try bytes.withUnsafeBytes { try FileIO.writeAll(fd, $0, path: path) }
            offset = end
        }
        return size
    }
}

/// A folder of this process's own under `$TMPDIR` (`/tmp` without it), mode 0700, removed
/// with everything in it when the value goes.
final class ScratchFolder: @unchecked Sendable {
    let path: String

    /// `$TMPDIR`, or `/tmp` without it: where anonymous scratch files (`Spill`) are made.
    static var temporaryDirectory: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    init() throws {
        var random = SystemRandomNumberGenerator()
        path = Self.temporaryDirectory + "/feedcrawl-scratch-\(getpid())-" + String(random.next() & 0xFFFF_FFFF, radix: 16)
        try AtomicFile.createDirectories(path, permissions: 0o700)
    }

    deinit {
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR, let dir = opendir(path) {
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = DirectoryEntry.name(entry)
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
