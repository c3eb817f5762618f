import Glibc

extension CacheLayout {
    /// What a scan of `OUT/cache/` found.
    struct CacheScan {
        /// Cache-shaped files (`cache/ab/<key>.<ext>`), relative to OUT.
        var entries: Set<String> = []
        /// `.part` files left by interrupted downloads, relative to OUT.
        var temporary: [String] = []
    }

    /// Lists the fan-out folders: one `readdir` pass, no `stat` per file. Names of any other
    /// shape are left alone (and not reported).
    func scanCache() -> CacheScan {
        var scan = CacheScan()
        forEachCacheFile { folder, name in
            let fan = String(folder.suffix(2))
            let relative = Self.cacheDirectoryName + "/" + fan + "/" + name
            if Self.isTemporary(name) {
                scan.temporary.append(relative)
            } else if Self.isValidRelativePath(relative) {  // a key in its own fan-out folder
                scan.entries.insert(relative)
            }
        }
        return scan
    }

    /// Removes the `OUT/manifest.json.<random>.part` and `OUT/index.html.<random>.part` files an
    /// interrupted manifest or contact-sheet write left. Returns how many.
    @discardableResult
    func removeTemporaryManifests() -> Int {
        guard let dir = opendir(outDirectory) else { return 0 }
        defer { closedir(dir) }
        let prefixes = [Self.manifestFileName + ".", ContactSheet.fileName + "."]
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if prefixes.contains(where: { name.hasPrefix($0) }), Self.isTemporary(name) { names.append(name) }
        }
        return names.filter { unlink(absolutePath($0)) == 0 }.count
    }

    /// Whether the cache holds `record`'s file with the recorded size: one `stat`. A file of
    /// another size (changed behind the manifest's back, e.g. by a killed run) does not count.
    func holds(_ record: CachedImage) -> Bool {
        guard Self.isValidRelativePath(record.file) else { return false }
        var info = stat()
        guard stat(absolutePath(record.file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        if let bytes = record.bytes { return Int64(info.st_size) == bytes }
        return true
    }
}
