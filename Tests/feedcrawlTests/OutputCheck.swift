import FeedCrawlKit
import Foundation

/// Checks an output folder after a run of the binary: what `feedcrawl manifest --verify` does
/// (being built on branch `cache`; once it lands, `problems` can call the binary instead), plus
/// the files a finished run must not leave behind.
enum OutputCheck {
    /// Problems of the manifest against the disk: it must load; every file it references must
    /// be a valid cache path, exist, and have the recorded size and SHA-256 (and, when `expected`
    /// maps the item's image URL to a SHA-256, that one).
    static func problems(out: String, expected: [String: String] = [:]) -> [String] {
        let manifest: Manifest
        do {
            manifest = try ManifestStore.load(outDirectory: out)
        } catch {
            return ["manifest does not load: \(error)"]
        }
        let layout = CacheLayout(outDirectory: out)
        var problems: [String] = []
        for item in manifest.items {
            let name = "\(item.source)/\(item.id)"
            if [.downloaded, .fresh, .revalidated].contains(item.status), item.file == nil {
                problems.append("\(name): \(item.status.rawValue) without a file")
            }
            guard let file = item.file else { continue }
            guard CacheLayout.isValidRelativePath(file) else {
                problems.append("\(name): invalid path \(file)")
                continue
            }
            guard let data = FileManager.default.contents(atPath: layout.absolutePath(file)) else {
                problems.append("\(name): \(file) missing")
                continue
            }
            let sha = SHA256.hex(Array(data))
            if let bytes = item.bytes, bytes != Int64(data.count) {
                problems.append("\(name): \(file) has \(data.count) bytes, manifest says \(bytes)")
            }
            if item.sha256 != sha { problems.append("\(name): \(file) sha256 differs from the manifest") }
            if let url = item.imageURL, let want = expected[url], want != sha {
                problems.append("\(name): \(file) is not the server's image")
            }
        }
        return problems
    }

    /// Temporary files under OUT: `.part` files (cache downloads, manifest writes), the manifest
    /// reserve, the journal.
    static func leftovers(out: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: out) else { return [] }
        var found: [String] = []
        for case let path as String in walker {
            let name = (path as NSString).lastPathComponent
            if name.hasSuffix(".part") || name == ".manifest-reserve" || name == "manifest.journal" {
                found.append(path)
            }
        }
        return found.sorted()
    }

    /// The manifest's items, or nil when it does not load.
    static func items(out: String) -> [ManifestItem]? {
        try? ManifestStore.load(outDirectory: out).items
    }
}
