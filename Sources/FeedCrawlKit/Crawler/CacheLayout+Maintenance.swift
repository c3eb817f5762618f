import Glibc

extension CacheLayout {
    /// Removes the `manifest.json.<random>.part` files (in the state directory) and, unless this
    /// is a shard's layout, the `OUT/index.html.<random>.part` files an interrupted manifest or
    /// contact-sheet write left. Returns how many.
    @discardableResult
    func removeTemporaryManifests() -> Int {
        guard let dir = opendir(stateDirectory) else { return 0 }
        defer { closedir(dir) }
        let prefixes = [Self.manifestFileName + "."] + (shard == nil ? [ContactSheet.fileName + "."] : [])
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if prefixes.contains(where: { name.hasPrefix($0) }), Self.isTemporary(name) { names.append(name) }
        }
        return names.filter { unlink(statePath($0)) == 0 }.count
    }

    /// Whether the cache holds `file` (a cache path) with `bytes` bytes (any size when nil):
    /// one `stat`. A file of another size (changed behind the manifest's back, e.g. by a killed
    /// run) does not count.
    func holds(file: String, bytes: Int64?) -> Bool {
        guard Self.isValidRelativePath(file) else { return false }
        var info = stat()
        guard stat(absolutePath(file), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        if let bytes { return Int64(info.st_size) == bytes }
        return true
    }
}
