import Glibc
import FeedCrawlSupport

extension CacheLayout {
    /// Removes the `manifest.json.<random>.part` files (in the state directory) and, unless this
    /// is a shard's layout, the `OUT/index.html.<random>.part` (and `index-K.html.…`) files an
    /// interrupted manifest or contact-sheet write left. Returns how many.
    @discardableResult
    func removeTemporaryManifests() -> Int {
        guard let dir = opendir(stateDirectory) else { return 0 }
        defer { closedir(dir) }
        let prefixes = [Self.manifestFileName + "."] + (shard == nil ? [ContactSheet.fileName + ".", ContactSheet.pagePrefix] : [])
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if prefixes.contains(where: { name.hasPrefix($0) }), Self.isTemporary(name) { names.append(name) }
        }
        return names.filter { unlink(statePath($0)) == 0 }.count
    }
}
