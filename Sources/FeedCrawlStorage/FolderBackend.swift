import FeedCrawlSupport
#if canImport(Glibc)
import Glibc
#endif

/// OUT as a folder on a local (or mounted) file system (restic's `local` backend).
///
/// OUT is held open (`FolderRoot`) and every name resolves against it. A body is staged as
/// `<dest>.<12 hex digits>.part` next to its destination (`FolderStagedFile`), folders made when
/// missing (on ENOENT, then once more: a warm run makes no `mkdir` per file), and saved by a
/// rename over the destination, atomic on one file system: a reader sees the old file or the new
/// one, never part of one.
///
/// What each fsync of a durable save (the default, `SaveOptions.durable`) buys, as
/// `AtomicFile` does it:
/// - the file's, before the rename: its bytes are on disk before its name points at them (a
///   crash never leaves the name with an empty or cut file);
/// - its folder's, after the rename: the new name itself is on disk (a crash cannot bring back
///   the old file or none, so a file saved later, the journal or the root, never names a file
///   that is not there). A batch (`saveAll`) syncs each folder once, after all its renames.
///
/// A save that is not durable (kept feed pages) does neither: still atomic for every process, but
/// a crash of the machine may lose it. Folders made on the way are not synced (as `AtomicFile`
/// never did). Every write honours `WriteFaults`; errors are `BackendError.system` (ENOSPC,
/// EDQUOT, EROFS: `.full`) naming the path as people see it (`OUT/cache/ab/….part`).
///
/// Every blocking call of an async operation runs on `BlockingIO` (never on a thread of Swift's
/// cooperative pool); a batch (`saveAll`) in one hop. `stage` and the staged file's `write` are
/// synchronous: the engine writes on its own thread.
///
/// Properties: 1 connection (one disk: saves one after the other), no bound on staged bodies (they
/// are staged in place), can fill up (OUT's device is this machine's).
final class FolderBackend: Backend {
    /// OUT, held open.
    let root: FolderRoot
    /// Where the blocking calls run.
    let io: BlockingIO

    /// The store of the folder `path` (relative or absolute; a trailing `/` is ignored), which is
    /// made when missing, but not its parent: a path on a disk that is not mounted would
    /// otherwise fill the file system below it (`.notFound` saying so). Blocking calls go to `io`
    /// (default `BlockingIO.shared`); these few (`open`, `mkdir`) are made on the calling thread,
    /// once per run.
    init(_ path: String, io: BlockingIO = .shared) throws(BackendError) {
        var out = path
        while out.count > 1, out.hasSuffix("/") { out.removeLast() }
        if out.isEmpty { out = "." }
        var fd = Glibc.open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            if mkdir(out, 0o755) != 0, errno != EEXIST {
                let code = errno
                guard code == ENOENT else { throw BackendError.system("create", location: out, code: code) }
                let parent = FileIO.directoryName(of: out)
                throw BackendError(
                    .notFound, "create", location: out,
                    reason: "its parent folder \(parent) does not exist (a disk that is not mounted?); "
                        + "create it first (mkdir -p \(parent)) or choose another --out",
                    code: ENOENT)
            }
            fd = Glibc.open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else { throw BackendError.system("open", location: out, code: errno) }
        root = FolderRoot(fd: fd, path: out)
        self.io = io
    }

    var properties: BackendProperties {
        BackendProperties(connections: 1, maxWaitingStaged: 256, canFillUp: true)
    }

    /// Room on OUT's device, under `handle` (a `.state` name: `.manifest-reserve`).
    func reserve(_ handle: FileHandle) throws(BackendError) -> (any SpaceReservation)? {
        try FolderReservation(root: root, relative: handle.path)
    }

    func location(_ handle: FileHandle) -> String {
        root.display(handle.path)
    }

    /// Where a body staged for `handle` is written: `<path>.<12 hex digits>.part` (an image's:
    /// `cache/ab/<key>.<12 hex digits>.part`, its extension not known yet).
    static func stagedPath(for handle: FileHandle) -> String {
        let suffix = TemporaryName.next()
        switch handle.kind {
        case .image: return imageStagedPath(key: handle.name.utf8.prefix(64), suffix: suffix)
        case .archive, .page: return handle.kind.folder + "/" + FileHandle.stagedName(for: handle, suffix: suffix)
        case .state, .sheet, .lock: return FileHandle.stagedName(for: handle, suffix: suffix)
        }
    }

    /// `cache/<first two digits>/<key>.<suffix>.part` made in one pass (every download stages
    /// one, on the engine's thread).
    private static func imageStagedPath(key: Substring.UTF8View, suffix: String) -> String {
        let count = 6 + 2 + 1 + key.count + 1 + suffix.utf8.count + FileHandle.partialSuffix.utf8.count
        return String(unsafeUninitializedCapacity: count) { out in
            var at = 0
            func put(_ bytes: some Sequence<UInt8>) {
                for byte in bytes {
                    out[at] = byte
                    at += 1
                }
            }
            put("cache/".utf8)
            put(key.prefix(2))
            put(CollectionOfOne(UInt8(ascii: "/")))
            put(key)
            put(CollectionOfOne(UInt8(ascii: ".")))
            put(suffix.utf8)
            put(FileHandle.partialSuffix.utf8)
            return at
        }
    }

    func stage(_ handle: FileHandle) throws(BackendError) -> any StagedFile {
        try FolderStagedFile(root: root, path: Self.stagedPath(for: handle))
    }

    func save(_ handle: FileHandle, staged: any StagedFile, options: SaveOptions) async throws(BackendError) {
        let body = try own(staged, for: handle)
        let root = root
        try await io.run { () throws(BackendError) in
            try body.commit(as: handle.path, durable: options.durable)
            if options.durable { try Self.syncFolder(of: handle.path, in: root) }
        }
    }

    func save(_ handle: FileHandle, bytes: [UInt8], options: SaveOptions) async throws(BackendError) {
        let root = root
        try await io.run { () throws(BackendError) in
            try Self.write(bytes, as: handle, in: root, durable: options.durable)
            if options.durable { try Self.syncFolder(of: handle.path, in: root) }
        }
    }

    /// The whole batch in one hop to `BlockingIO`: every file written (or its staged body
    /// committed) and renamed in order, then each folder that got a durable file synced once.
    func saveAll(_ batch: [SaveRequest]) async -> [BackendError?] {
        var errors = [BackendError?](repeating: nil, count: batch.count)
        var bodies: [FolderStagedFile?] = []
        for (index, request) in batch.enumerated() {
            guard case .staged(let staged) = request.body else {
                bodies.append(nil)
                continue
            }
            do throws(BackendError) {
                bodies.append(try own(staged, for: request.handle))
            } catch {
                bodies.append(nil)
                errors[index] = error
            }
        }
        let root = root
        let prepared = errors
        let staged = bodies
        return await io.run { () -> [BackendError?] in
            var errors = prepared
            var folders: [String: [Int]] = [:]
            for (index, request) in batch.enumerated() where errors[index] == nil {
                do throws(BackendError) {
                    if let body = staged[index] {
                        try body.commit(as: request.handle.path, durable: request.options.durable)
                    } else if case .bytes(let bytes) = request.body {
                        try Self.write(bytes, as: request.handle, in: root, durable: request.options.durable)
                    }
                    if request.options.durable { folders[Self.folder(of: request.handle.path), default: []].append(index) }
                } catch {
                    errors[index] = error
                }
            }
            for (folder, indices) in folders {
                do throws(BackendError) {
                    try Self.syncFolder(folder, in: root)
                } catch {
                    for index in indices { errors[index] = error }
                }
            }
            return errors
        }
    }

    func load(_ handle: FileHandle, range: Range<Int64>?, maxBytes: Int64) async throws(BackendError) -> [UInt8] {
        let root = root
        return try await io.run { () throws(BackendError) -> [UInt8] in
            let shown = root.display(handle.path)
            let fd = root.open(handle.path, O_RDONLY)
            guard fd >= 0 else { throw BackendError.system("load", location: shown, code: -fd) }
            defer { Glibc.close(fd) }
            var info = Glibc.stat()
            guard fstat(fd, &info) == 0 else { throw BackendError.system("load", location: shown, code: errno) }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw BackendError.system("load", location: shown, code: EISDIR) }
            let size = Int64(info.st_size)
            let wanted = range ?? 0..<size
            guard wanted.lowerBound >= 0, wanted.upperBound <= size else {
                throw BackendError(.refused, "load", location: shown,
                                   reason: "the range \(wanted.lowerBound)..<\(wanted.upperBound) is past the end (\(size) bytes)")
            }
            guard Int64(wanted.count) <= maxBytes else {
                throw BackendError(.refused, "load", location: shown, reason: "\(wanted.count) bytes, more than the \(maxBytes) asked for")
            }
            return try Self.read(fd, wanted, shown: shown)
        }
    }

    func stat(_ handle: FileHandle) async throws(BackendError) -> FileInfo? {
        let root = root
        return try await io.run { () throws(BackendError) -> FileInfo? in
            var info = Glibc.stat()
            while fstatat(root.fd, handle.path, &info, 0) != 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ENOENT || code == ENOTDIR { return nil }
                throw BackendError.system("stat", location: root.display(handle.path), code: code)
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
            return FileInfo(handle: handle, size: Int64(info.st_size), modified: Self.seconds(info.st_mtim))
        }
    }

    func remove(_ handle: FileHandle) async throws(BackendError) {
        let root = root
        try await io.run { () throws(BackendError) in
            while unlinkat(root.fd, handle.path, 0) != 0 {
                let code = errno
                if code == EINTR { continue }
                if code == ENOENT || code == ENOTDIR { return }
                throw BackendError.system("remove", location: root.display(handle.path), code: code)
            }
        }
    }

    // MARK: Blocking helpers (on `BlockingIO`)

    /// `staged` as this store's body, or a refusal (the body discarded: it cannot be saved here).
    private func own(_ staged: any StagedFile, for handle: FileHandle) throws(BackendError) -> FolderStagedFile {
        guard let body = staged as? FolderStagedFile, body.root === root else {
            staged.discard()
            throw BackendError(.refused, "save", location: location(handle), reason: "a body staged by another store")
        }
        return body
    }

    /// Writes `bytes` as `handle` through a staged file next to it (atomic like every save).
    private static func write(_ bytes: [UInt8], as handle: FileHandle, in root: FolderRoot, durable: Bool) throws(BackendError) {
        let body = try FolderStagedFile(root: root, path: stagedPath(for: handle))
        do {
            try bytes.withUnsafeBytes { raw in Result { () throws(BackendError) in try body.writeChecked(raw) } }.get()
        } catch {
            body.discard()
            throw error
        }
        try body.commit(as: handle.path, durable: durable)
    }

    /// The folder a path under OUT is in (`""`: OUT itself).
    static func folder(of relative: String) -> String {
        // Bytes, not characters: a `Character` search walks grapheme clusters backwards, which
        // cost 24,000 instructions an image (callgrind, W5).
        guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(relative[..<slash])
    }

    /// fsyncs the folder `relative` is in (see the type's comment for what it buys).
    private static func syncFolder(of relative: String, in root: FolderRoot) throws(BackendError) {
        try syncFolder(folder(of: relative), in: root)
    }

    /// fsyncs the folder `folder` (relative to OUT; `""`: OUT). A failure is never transient (see
    /// `FolderStagedFile.commit`).
    private static func syncFolder(_ folder: String, in root: FolderRoot) throws(BackendError) {
        let fd = folder.isEmpty ? root.fd : root.open(folder, O_RDONLY | O_DIRECTORY)
        let shown = folder.isEmpty ? root.path : root.display(folder)
        guard fd >= 0 else { throw FolderStagedFile.finalError(-fd, location: shown) }
        defer { if fd != root.fd { Glibc.close(fd) } }
        while fsync(fd) != 0 {
            let code = errno
            if code != EINTR { throw FolderStagedFile.finalError(code, location: shown) }
        }
    }

    /// `range` of the open file `fd` (`pread`, looping over short reads and EINTR).
    private static func read(_ fd: Int32, _ range: Range<Int64>, shown: String) throws(BackendError) -> [UInt8] {
        let count = Int(range.count)
        guard count > 0 else { return [] }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count {
                let n = pread(fd, buffer.baseAddress! + done, count - done, off_t(range.lowerBound) + off_t(done))
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    failure = n == 0 ? EIO : errno
                    break
                }
            }
            initialized = done
        }
        guard failure == 0 else { throw BackendError.system("load", location: shown, code: failure) }
        return bytes
    }

    /// A `timespec` as seconds since 1970.
    static func seconds(_ time: timespec) -> Double {
        Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension FolderStagedFile {
    /// `write` with its error typed (it throws only `BackendError`).
    func writeChecked(_ chunk: UnsafeRawBufferPointer) throws(BackendError) {
        do {
            try write(chunk)
        } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError(.refused, "save", location: displayPath, reason: "\(error)")
        }
    }
}
