import FeedCrawlKit
import Foundation

/// Looks into an output folder the binary wrote.
struct OutputFolder {
    let path: String

    init() { path = BinaryRunner.temporaryDirectory() }

    var fm: FileManager { .default }

    /// Every file below the folder, relative, with its size (the lock file excluded).
    func snapshot() -> [String: Int] {
        var result: [String: Int] = [:]
        guard let walker = fm.enumerator(atPath: path) else { return [:] }
        for case let relative as String in walker where relative != ".lock" {
            let attributes = try? fm.attributesOfItem(atPath: path + "/" + relative)
            if attributes?[.type] as? FileAttributeType == .typeRegular {
                result[relative] = (attributes?[.size] as? NSNumber)?.intValue ?? -1
            }
        }
        return result
    }

    /// `.part` files anywhere below the folder.
    func partFiles() -> [String] { snapshot().keys.filter { $0.hasSuffix(".part") }.sorted() }

    /// Finished cache files (relative paths).
    func cacheFiles() -> Set<String> {
        Set(snapshot().keys.filter { $0.hasPrefix("cache/") && !$0.hasSuffix(".part") })
    }

    var manifestExists: Bool { fm.fileExists(atPath: path + "/manifest.json") }
    var journalExists: Bool { fm.fileExists(atPath: path + "/manifest.journal") }

    func manifest() throws -> Manifest { try ManifestStore.load(outDirectory: path) }

    func remove() { try? fm.removeItem(atPath: path) }
}
