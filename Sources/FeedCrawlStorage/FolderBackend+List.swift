import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

extension FolderBackend {
    /// How many files a page of a listing holds at most (images: one page per fan-out folder).
    static let pageSize = 1000

    /// Lists with `readdir`, never entering another kind's folder:
    /// - images: the fan-out folders of `OUT/cache` (those `prefix` allows: `ab…` reads only
    ///   `cache/ab/`), one page per folder, names only (no `stat`: `size` and `modified` nil);
    /// - archive files and kept pages: `OUT/archive` or `OUT/pages`, from the folder `prefix`
    ///   names (`journal/` walks `archive/journal/` only) down, each file `stat`ed (they are few);
    /// - state, sheet pages and locks: OUT's top level; with a prefix naming a folder
    ///   (`shards/`), that folder and what is below it (`shards/N/K/manifest.json`, `…/.lock`).
    ///
    /// Staged bodies a killed process left (`….<12 hex>.part`) are listed as partial handles;
    /// what is of no kind (anything a person put there) is not listed. A missing folder lists
    /// nothing. Directories are read on `BlockingIO`, a fan-out folder per hop; `page` is called
    /// on the caller's task. A cancelled task stops between pages with `.cancelled`.
    func list(_ kind: FileKind, prefix: String, _ page: ([FileInfo]) throws -> Void) async throws(BackendError) {
        let root = root
        let shown = kind.folder.isEmpty ? root.path : root.display(kind.folder)
        /// Hands a page to `page` (none when empty), stopping when the task is cancelled.
        func deliver(_ infos: [FileInfo]) throws(BackendError) {
            guard !Task.isCancelled else { throw BackendError(.cancelled, "list", location: shown, reason: "cancelled") }
            guard !infos.isEmpty else { return }
            do {
                try page(infos)
            } catch let error as BackendError {
                throw error
            } catch is CancellationError {
                throw BackendError(.cancelled, "list", location: shown, reason: "cancelled")
            } catch {
                throw BackendError(.refused, "list", location: shown, reason: "\(error)")
            }
        }
        if kind == .image {
            let folders = try await io.run { () throws(BackendError) -> [String] in
                try Self.entries(of: "cache", in: root).compactMap { entry in
                    guard entry.isFolder, Self.isFanOut(entry.name), Self.fanOut(entry.name, allows: prefix) else { return nil }
                    return entry.name
                }.sorted()
            }
            for folder in folders {
                let infos = try await io.run { () throws(BackendError) -> [FileInfo] in
                    try Self.entries(of: "cache/" + folder, in: root).compactMap { entry in
                        guard !entry.isFolder, let handle = FileHandle.classify("cache/" + folder + "/" + entry.name),
                              handle.kind == .image, handle.name.hasPrefix(prefix) else { return nil }
                        return FileInfo(handle: handle, size: nil)
                    }
                }
                try deliver(infos)
            }
            return
        }
        // Names first, then each page's `stat`s: a sheet of 50,000 pages listed as one array
        // of `FileInfo` held 6 MB beside the names.
        let paths = try await io.run { () throws(BackendError) -> [String] in
            try Self.walk(kind, prefix: prefix, in: root)
        }
        var start = 0
        while start < paths.count {
            let end = min(start + Self.pageSize, paths.count)
            let names = paths[start..<end]
            try deliver(try await io.run { () throws(BackendError) -> [FileInfo] in
                names.compactMap { path in
                    guard let handle = FileHandle.classify(path) else { return nil }
                    var info = Glibc.stat()
                    guard fstatat(root.fd, path, &info, 0) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
                    return FileInfo(handle: handle, size: Int64(info.st_size), modified: Self.seconds(info.st_mtim))
                }
            })
            start = end
        }
    }

    /// Files of `kind` (not images) whose names start with `prefix`, each `stat`ed.
    /// The paths under OUT of the files of `kind` whose name starts with `prefix`.
    private static func walk(_ kind: FileKind, prefix: String, in root: FolderRoot) throws(BackendError) -> [String] {
        // The folder the prefix names (`journal/` of `journal/a-`), within the kind's folder.
        let named = prefix.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(prefix[..<$0]) } ?? ""
        let start: String
        switch kind {
        case .image:
            return []
        case .archive, .page:
            start = named.isEmpty ? kind.folder : kind.folder + "/" + named
        case .sheet:
            guard named.isEmpty else { return [] }
            start = ""
        case .state, .lock:
            // Never into another kind's folder, even when a prefix names it.
            if let first = named.split(separator: "/").first, ["cache", "archive", "pages"].contains(first) { return [] }
            start = named
        }
        var found: [String] = []
        // OUT's top level is read alone; every other folder with what is below it.
        var folders = [start]
        while let folder = folders.popLast() {
            for entry in try entries(of: folder, in: root) {
                let path = folder.isEmpty ? entry.name : folder + "/" + entry.name
                if entry.isFolder {
                    if !folder.isEmpty || !start.isEmpty { folders.append(path) }
                    continue
                }
                guard let handle = FileHandle.classify(path), handle.kind == kind, handle.name.hasPrefix(prefix) else { continue }
                found.append(path)
            }
        }
        return found
    }

    /// An entry of a folder.
    private struct Entry {
        var name: String
        var isFolder: Bool
    }

    /// The entries of the folder `folder` (relative to OUT; `""`: OUT), without `.` and `..`;
    /// none when it does not exist. Whether an entry is a folder comes from `d_type` (a `stat`
    /// only where the file system does not say).
    private static func entries(of folder: String, in root: FolderRoot) throws(BackendError) -> [Entry] {
        let fd = root.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else {
            if -fd == ENOENT || -fd == ENOTDIR { return [] }
            throw BackendError.system("list", location: folder.isEmpty ? root.path : root.display(folder), code: -fd)
        }
        guard let dir = fdopendir(fd) else {
            let code = errno
            Glibc.close(fd)
            throw BackendError.system("list", location: root.display(folder), code: code)
        }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if name == "." || name == ".." { continue }
            var isFolder = entry.pointee.d_type == UInt8(DT_DIR)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                var info = Glibc.stat()
                isFolder = fstatat(dirfd(dir), name, &info, AT_SYMLINK_NOFOLLOW) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            }
            entries.append(Entry(name: name, isFolder: isFolder))
        }
        return entries
    }

    /// Whether `name` is a fan-out folder's: two lowercase hex digits.
    private static func isFanOut(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether names in the fan-out folder `folder` can start with `prefix`.
    private static func fanOut(_ folder: String, allows prefix: String) -> Bool {
        prefix.utf8.count >= 2 ? prefix.utf8.prefix(2).elementsEqual(folder.utf8) : folder.hasPrefix(prefix)
    }
}

extension FolderBackend {
    /// `flock` on the lock file (`.lock`, a shard's `shards/N/K/.lock`, made with its folders when
    /// missing) through `RunLock`: exclusive or shared, the holder's pid recorded in the file
    /// while an exclusive lock is held (`feedcrawl manifest` shows it). Held by another (another
    /// process, or another open in this one) → `.lockHeld` saying which pid holds it, when the
    /// file names a live one. The kernel releases it when the process dies; `keepHolding` has
    /// nothing to renew. `holder` is not recorded (the pid is what a folder's lock shows).
    func lock(_ handle: FileHandle, mode: LockMode, holder: String) async throws(BackendError) -> any BackendLock {
        let root = root
        let shown = location(handle)
        guard handle.kind == .lock, !handle.isPartial else {
            throw BackendError(.refused, "lock", location: shown, reason: "not a lock file (\(handle.kind.rawValue))")
        }
        let taken = try await io.run { () throws(BackendError) -> RunLock in
            var madeFolders = false
            while true {
                do throws(RunLock.Error) {
                    return try RunLock(in: root.fd, name: handle.path, path: shown, shared: mode == .shared)
                } catch {
                    switch error {
                    case .held:
                        throw BackendError(.lockHeld, "lock", location: shown, reason: Self.heldReason(handle.path, in: root))
                    case .io(let failure):
                        if failure.code == ENOENT, !madeFolders, root.makeFolders(leadingTo: handle.path) == 0 {
                            madeFolders = true
                            continue
                        }
                        throw BackendError.system("lock", location: shown, code: failure.code)
                    }
                }
            }
        }
        return FolderLock(taken, io: io)
    }

    /// Who holds the lock file `relative`: the pid it records when that process is alive
    /// (`RunLock.livePID`), as the run that finds OUT locked says it.
    private static func heldReason(_ relative: String, in root: FolderRoot) -> String {
        var pid: Int32?
        let fd = root.open(relative, O_RDONLY)
        if fd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            Glibc.close(fd)
            if n > 0, let recorded = Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingASCIIWhitespace()),
               recorded > 0, kill(recorded, 0) == 0 || errno == EPERM {
                pid = recorded
            }
        }
        guard let pid else { return "held by another feedcrawl run or shard" }
        return "held by another feedcrawl run (pid \(pid))"
    }
}

/// A folder's lock: a `RunLock` (`flock`), held until released or the process ends.
final class FolderLock: BackendLock {
    /// The `flock` held.
    private let lock: RunLock
    /// Where its release runs.
    private let io: BlockingIO

    /// Holds `lock`; releases it on `io`.
    init(_ lock: RunLock, io: BlockingIO) {
        self.lock = lock
        self.io = io
    }

    var isHeld: Bool { lock.isHeld }

    /// Nothing to renew: the kernel holds a `flock` until it is released or the process ends.
    func keepHolding(onLost: @escaping @Sendable (String) -> Void) {}

    func release() async {
        let lock = lock
        await io.run { lock.release() }
    }
}
