import Glibc

extension CacheLayout {
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
