import FeedCrawlKit
import Foundation

/// An output folder written by the release before the archive format 3 (feedcrawl f7d1660,
/// manifest version 2: every item in `manifest.json`, a killed run's outcomes in
/// `manifest.journal`), kept in `Fixtures/v2/<name>`: `plain` is a finished
/// `--pages 1 --per-page 3` run of the built-in demo feed; `killed` that run followed by a
/// `--details` run SIGKILLed after it had journaled its outcomes (`FEEDCRAWL_TEST_KILL_AT=
/// outcomes-journaled`): a version-2 manifest plus a version-2 journal. Made with f7d1660's
/// binary; the lock file and the contact sheet left out, as in `Fixtures/v1`.
struct VersionTwoFixture: CustomStringConvertible, Sendable {
    let name: String

    var description: String { name }

    static let plain = VersionTwoFixture(name: "plain")
    static let killed = VersionTwoFixture(name: "killed")

    var path: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/v2/" + name).path
    }

    var hasJournal: Bool { FileManager.default.fileExists(atPath: path + "/manifest.journal") }

    /// A fresh copy in a new temporary folder (the fixture itself is never written).
    func copy() throws -> OutputFolder {
        let out = OutputFolder()
        for entry in try FileManager.default.contentsOfDirectory(atPath: path) {
            try FileManager.default.copyItem(atPath: path + "/" + entry, toPath: out.path + "/" + entry)
        }
        return out
    }

    /// The items as the version-2 files say, in the manifest's order: the manifest's, each
    /// replaced by the last journal line with its key (as a version-2 run folded its journal).
    func items() throws -> [ManifestItem] {
        var items = try ManifestStore.load(path: path + "/manifest.json").itemsByKey
        if hasJournal, let bytes = FileManager.default.contents(atPath: path + "/manifest.journal") {
            for item in ItemJSON.journalLines(Array(bytes)).items { items[item.key] = item }
        }
        return Manifest(generatedAt: Date(), items: Array(items.values)).sortedItems
    }
}
