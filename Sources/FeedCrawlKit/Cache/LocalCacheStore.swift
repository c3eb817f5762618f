import Glibc
import FeedCrawlSupport

/// The cache as a local directory, `OUT/cache/ab/<64 hex>.<ext>` (`CacheLayout`).
///
/// A body streams into `cache/ab/<key>.<12 hex digits>.part` next to its entry; `commit` fsyncs
/// and closes it, renames it over the final name (atomic on one file system: a reader sees the
/// old entry or the new one, never part of one) and removes a replaced copy. A write failure names
/// the path and errno and honours `WriteFaults`, so a full disk stops the run (`CrawlStorage`).
///
/// OUT is held open: names resolve against it (`openat`, `renameat`, `unlinkat`, `fstatat`),
/// so the kernel walks only `cache/ab/…` for each file of a crawl instead of the whole path.
/// When OUT cannot be opened, names resolve as OUT-prefixed paths.
final class LocalCacheStore: CacheStore {
    let layout: CacheLayout
    /// OUT (`O_RDONLY | O_DIRECTORY | O_CLOEXEC`), or -1 when it could not be opened.
    private let directory: Int32

    /// The store of `layout`'s cache; nothing is created (`prepare()` does).
    init(layout: CacheLayout) {
        self.layout = layout
        directory = open(layout.outDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    deinit {
        if directory >= 0 { close(directory) }
    }

    /// What names resolve against.
    private var base: Int32 { directory >= 0 ? directory : AT_FDCWD }

    /// `name` as the file calls take it: as it is against OUT, else OUT-prefixed.
    private func local(_ name: String) -> String {
        directory >= 0 ? name : layout.absolutePath(name)
    }

    /// `name` as a path from the working directory (`OUT/<name>`), for messages.
    func displayPath(_ name: String) -> String {
        layout.absolutePath(name)
    }

    /// A fresh partial name for the entry with `key`, in the folder of its entry:
    /// `"cache/ab/<key>.<12 hex digits>.part"`. The digits come from a per-process sequence with
    /// a random start (no system call per download).
    static func partialName(forKey key: String) -> String {
        CacheLayout.entryPath(
            in: CacheLayout.cacheDirectoryName, key: key, ending: TemporaryName.next(), suffix: AtomicFile.temporarySuffix)
    }

    func prepare() throws(CacheStoreError) {
        try LocalCacheStore.createDirectories(layout.cacheDirectory)
        let digits = Array("0123456789abcdef")
        for high in digits {
            for low in digits {
                let path = layout.cacheDirectory + "/" + String(high) + String(low)
                if mkdir(path, 0o755) != 0 && errno != EEXIST {
                    throw CacheStoreError("create", path: path, code: errno)
                }
            }
        }
    }

    func makeSink(key: String) throws(CacheStoreError) -> any CacheSink {
        let name = Self.partialName(forKey: key)
        let fd = openat(base, local(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheStoreError("write", path: displayPath(name), code: errno) }
        return LocalCacheSink(owner: self, name: name, directory: base, path: local(name), displayPath: displayPath(name),
                              fd: fd)
    }

    func commit(_ sink: any CacheSink, as name: String, replacing: String?) throws(CacheStoreError) {
        guard let sink = sink as? LocalCacheSink, sink.owner === self else {
            preconditionFailure("LocalCacheStore.commit: a sink of another store")
        }
        try sink.close(fsync: true)
        guard renameat(base, sink.path, base, local(name)) == 0 else {
            let code = errno
            sink.unlink()
            throw CacheStoreError("store", path: displayPath(name), code: code)
        }
        if let replacing, CacheLayout.isValidRelativePath(replacing) { unlinkat(base, local(replacing), 0) }
    }

    func exists(_ name: String, bytes: Int64?) -> Bool {
        guard CacheLayout.isValidRelativePath(name) else { return false }
        var info = stat()
        guard fstatat(base, local(name), &info, 0) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        if let bytes { return Int64(info.st_size) == bytes }
        return true
    }

    /// One page per fan-out folder (`cache/ab/`), read with `readdir` (no `stat`). A missing
    /// cache folder lists nothing.
    func list(_ page: ([String]) -> Void) throws(CacheStoreError) {
        let cache = layout.cacheDirectory
        guard let top = opendir(cache) else { return }
        defer { closedir(top) }
        var names: [String] = []
        while let entry = readdir(top) {
            let folder = DirectoryEntry.name(entry)
            guard folder.utf8.count == 2, folder != ".." else { continue }
            guard let dir = opendir(cache + "/" + folder) else { continue }
            let prefix = CacheLayout.cacheDirectoryName + "/" + folder + "/"
            while let file = readdir(dir) {
                let name = DirectoryEntry.name(file)
                if name != "." && name != ".." { names.append(prefix + name) }
            }
            closedir(dir)
            if !names.isEmpty {
                page(names)
                names.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Only names under `cache/` (no `..` component) are removed; anything else throws EINVAL.
    @discardableResult
    func remove(_ name: String) throws(CacheStoreError) -> Bool {
        guard CacheLayout.isRemovable(name) else { throw CacheStoreError("remove", path: displayPath(name), code: EINVAL) }
        if unlinkat(base, local(name), 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw CacheStoreError("remove", path: displayPath(name), code: errno)
    }

    func read(_ name: String, _ chunk: (UnsafeRawBufferPointer) -> Void) throws(CacheStoreError) {
        try Self.readFile(local(name), in: base, shown: displayPath(name), chunk)
    }

    /// `AtomicFile.createDirectories(path)`, failing as `create`.
    static func createDirectories(_ path: String) throws(CacheStoreError) {
        do {
            try AtomicFile.createDirectories(path)
        } catch {
            throw CacheStoreError("create", path: error.path, code: error.code)
        }
    }

    /// Streams the file `path` (against the folder `directory`) to `chunk`, failing as `read` of `shown`.
    static func readFile(
        _ path: String, in directory: Int32, shown: String, _ chunk: (UnsafeRawBufferPointer) -> Void
    ) throws(CacheStoreError) {
        let fd = openat(directory, path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CacheStoreError("read", path: shown, code: errno) }
        defer { Glibc.close(fd) }
        do {
            try FileIO.readChunks(fd, path: shown, chunk)
        } catch {
            throw CacheStoreError("read", path: error.path, code: error.code)
        }
    }
}

/// The one sink that streams a body into a local file: written, hashed and checked
/// (`BodyDigester`) on the engine's loop thread, then closed (synced when asked) on the caller's
/// thread. `LocalCacheStore` puts it next to its entry and renames it into place; `S3CacheStore`
/// puts it in its spool folder and uploads it; `S3Client.get(key:toFile:)` pulls an object into
/// it. Used by one thread at a time (the engine hands it over when the transfer ends). Dropped
/// without `close`, it removes its file.
final class LocalCacheSink: CacheSink, @unchecked Sendable {
    /// The store that made it (its `commit` checks it was given its own sink; kept alive so that
    /// `directory` stays open).
    let owner: AnyObject
    /// The partial name as the store names it (`cache/ab/<key>.<12 hex digits>.part` locally).
    let name: String
    /// The folder `path` resolves against (`AT_FDCWD` or a descriptor `owner` holds open).
    let directory: Int32
    /// The file, relative to `directory`.
    let path: String
    /// The file as a path from the working directory, for messages.
    let displayPath: String
    /// The open file, or -1 once closed or discarded.
    private var fd: Int32
    private var digester = BodyDigester()

    /// A sink writing to `fd`, the file `path` (against `directory`).
    init(owner: AnyObject, name: String, directory: Int32, path: String, displayPath: String, fd: Int32) {
        self.owner = owner
        self.name = name
        self.directory = directory
        self.path = path
        self.displayPath = displayPath
        self.fd = fd
    }

    deinit {
        if fd >= 0 {
            Glibc.close(fd)
            unlink()
        }
    }

    var digest: BodyDigest { digester.finish() }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        do {
            // Honours `WriteFaults` (the disk-full tests) under the path people see.
            try FileIO.writeAll(fd, chunk, path: displayPath)
        } catch {
            throw CacheStoreError("write", path: displayPath, code: error.code)
        }
        digester.update(chunk)
    }

    func discard() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
        unlink()
    }

    /// Closes the file, first making the written bytes durable when `fsync` (the local store's
    /// entries; a spool file need not be); on failure removes it.
    func close(fsync sync: Bool) throws(CacheStoreError) {
        let fd = self.fd
        self.fd = -1
        var code: Int32 = !sync || fsync(fd) == 0 ? 0 : errno
        if Glibc.close(fd) != 0 && errno != EINTR && code == 0 { code = errno }
        guard code == 0 else {
            unlink()
            throw CacheStoreError("write", path: displayPath, code: code)
        }
    }

    /// Removes the file (after `discard()`, a failed commit, or an upload).
    func unlink() {
        unlinkat(directory, path, 0)
    }
}
