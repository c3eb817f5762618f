import Glibc
import FeedCrawlSupport

extension CacheLayout {
    /// Removes the `manifest.json.<random>.part` files (in the state directory) an interrupted
    /// manifest write left (the contact sheet's staged pages are removed by its writer, through
    /// the backend). Returns how many.
    @discardableResult
    func removeTemporaryManifests() -> Int {
        guard let dir = opendir(stateDirectory) else { return 0 }
        defer { closedir(dir) }
        let prefixes = [Self.manifestFileName + "."]
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntry.name(entry)
            if prefixes.contains(where: { name.hasPrefix($0) }), Self.isTemporary(name) { names.append(name) }
        }
        return names.filter { unlink(statePath($0)) == 0 }.count
    }
}
