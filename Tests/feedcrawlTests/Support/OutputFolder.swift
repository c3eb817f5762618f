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

    /// `.part` files in the folder and the cache's fan-out folders (relative paths).
    func partFiles() -> [String] {
        (Self.list(path) + cacheEntries()).filter { $0.hasSuffix(".part") }.sorted()
    }

    /// Finished cache files (relative paths).
    func cacheFiles() -> Set<String> { Set(cacheEntries().filter { !$0.hasSuffix(".part") }) }

    /// Everything in the fan-out folders, relative: `readdir` only, cheap enough to poll.
    private func cacheEntries() -> [String] {
        Self.list(path + "/cache").flatMap { folder in
            Self.list(path + "/cache/" + folder).map { "cache/\(folder)/\($0)" }
        }
    }

    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether the archive's root (`manifest.json`) exists: a run has committed.
    var manifestExists: Bool { fm.fileExists(atPath: path + "/manifest.json") }
    /// Whether journal files no root names are left (`ArchiveFiles.unnamedJournal`): a run that
    /// did not finish journaled pages, which the next run adopts.
    var hasUnnamedJournal: Bool { !ArchiveFiles.unnamedJournal(path).isEmpty }
    /// Whether the marker of a run in progress is there (a run that did not finish leaves it).
    var unfinishedMarkerExists: Bool { fm.fileExists(atPath: path + "/.unfinished") }

    /// The archive as one version-2 manifest (`ArchiveExport`: `feedcrawl manifest export`).
    func manifest() async throws -> Manifest { try await ArchiveExport.read(path).manifest }

    func remove() { try? fm.removeItem(atPath: path) }
}
