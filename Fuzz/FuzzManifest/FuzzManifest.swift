import FeedCrawlKit
import FuzzSupport

/// libFuzzer entry point for what a run reads back from OUT: `manifest.json` and
/// `manifest.journal` (which a crash, a full disk or a person may have mangled).
/// Nothing may trap; a manifest that decodes must re-encode stably; a `file` value the cache
/// layout accepts can never point outside the cache.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput.bytes(data, size)
    let journal = Journal.parse(bytes)
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).count
    FuzzInput.check(journal.items.count + journal.skippedLines <= lines, "more journal entries than lines")
    var manifest = (try? ManifestStore.decode(bytes)) ?? Manifest.empty
    manifest = manifest.folding(journal.items)
    for item in manifest.items {
        guard let file = item.file, CacheLayout.isValidRelativePath(file) else { continue }
        FuzzInput.check(!file.hasPrefix("/") && !file.contains(".."), "cache path \(file.debugDescription) accepted")
        FuzzInput.check(file.hasPrefix(CacheLayout.cacheDirectoryName + "/"), "cache path \(file.debugDescription) outside cache/")
    }
    // Whatever decoded must encode, and the encoding must be a fixed point after one round.
    do {
        let first = try ManifestStore.encode(manifest)
        let again = try ManifestStore.decode(Array(first))
        let second = try ManifestStore.encode(again)
        FuzzInput.check(first == second, "manifest encoding is not stable")
    } catch {
        FuzzInput.check(false, "a decoded manifest does not round-trip: \(error)")
    }
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzManifest) }
}
#endif
