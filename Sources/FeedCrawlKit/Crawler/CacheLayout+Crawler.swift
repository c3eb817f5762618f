import Glibc

extension CacheLayout {
    /// Creates `OUT/cache/00` … `OUT/cache/ff` up front, so downloads never create folders.
    func createFanOutDirectories() throws(FileSystemError) {
        try AtomicFile.createDirectories(cacheDirectory)
        let digits = Array("0123456789abcdef")
        for high in digits {
            for low in digits {
                let path = cacheDirectory + "/" + String(high) + String(low)
                if mkdir(path, 0o755) != 0 && errno != EEXIST {
                    throw FileSystemError("mkdir", path: path)
                }
            }
        }
    }

    /// A fresh temporary path for downloading `url`, in the folder of its cache entry:
    /// `"<entry without extension>.<12 hex digits>.part"`. The digits come from a per-process
    /// sequence with a random start (no system call per download, unlike `AtomicFile`'s).
    func temporaryPath(forURL url: String) -> String {
        temporaryPath(forKey: Self.key(forURL: url))
    }

    /// `temporaryPath(forURL:)` for the URL whose cache key is `key`.
    func temporaryPath(forKey key: String) -> String {
        Self.entryPath(in: cacheDirectory, key: key, ending: TemporaryName.next(), suffix: AtomicFile.temporarySuffix)
    }

    /// `temporaryPath(forKey:)` relative to OUT (`cache/ab/<key>.<12 hex digits>.part`).
    static func temporaryRelativePath(forKey key: String) -> String {
        entryPath(in: cacheDirectoryName, key: key, ending: TemporaryName.next(), suffix: AtomicFile.temporarySuffix)
    }

    /// Whether the manifest's `file` value names an existing file of this cache's shape.
    func fileExists(relativePath: String) -> Bool {
        guard Self.isValidRelativePath(relativePath) else { return false }
        var info = stat()
        return stat(absolutePath(relativePath), &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Removes `.part` files an interrupted run left in the cache. Returns how many.
    @discardableResult
    func removeTemporaryFiles() -> Int {
        var removed = 0
        forEachCacheFile { folder, name in
            if Self.isTemporary(name), unlink(folder + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// Calls `body` with each fan-out folder's path and each file name in it.
    func forEachCacheFile(_ body: (String, String) -> Void) {
        guard let top = opendir(cacheDirectory) else { return }
        defer { closedir(top) }
        while let entry = readdir(top) {
            let name = DirectoryEntry.name(entry)
            guard name.utf8.count == 2, name != ".." else { continue }
            let folder = cacheDirectory + "/" + name
            guard let dir = opendir(folder) else { continue }
            while let file = readdir(dir) {
                let fileName = DirectoryEntry.name(file)
                if fileName != "." && fileName != ".." { body(folder, fileName) }
            }
            closedir(dir)
        }
    }
}

/// Unique 12-hex-digit suffixes for temporary downloads (internal).
enum TemporaryName {
    private static let state = Locked<UInt64>(UInt64.random(in: 0...UInt64.max))

    /// The next suffix: a random start stepped by an odd constant, so no two repeat within
    /// 2^48 downloads of one process.
    static func next() -> String {
        let value = state.withLock { value -> UInt64 in
            value &+= 0x9E37_79B9_7F4A_7C15
            return value & 0xFFFF_FFFF_FFFF
        }
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 12) { out in
            for i in 0..<12 { out[i] = digits.utf8Start[Int((value >> UInt64(44 - 4 * i)) & 0xF)] }
            return 12
        }
    }
}
