import Foundation
import Testing

/// What a run that did not finish leaves is cleaned up by the next run, which every run shows by
/// leaving its marker `OUT/.unfinished` until its archive is committed, and by declaring the
/// images it is about to fetch (`archive/intents/`): staged bodies (`*.part` next to their
/// destinations: a cache download, an archive file, the root), images it stored but never
/// journaled (orphans) among those it declared, and its journal files (adopted: named by the
/// new root, or retired when they hold no group that lives on).
@Suite("feedcrawl temporary file cleanup", .serialized)
struct TemporaryFileCleanupTests {
    /// A partial body named as the folder store stages one: `<destination>.<12 hex>.part`.
    func plant(_ relative: String, in out: String, _ bytes: [UInt8] = [1, 2, 3]) throws -> String {
        let path = out + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    @Test func leftoversOfAnInterruptedRunAreRemoved() async throws {
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        // What a killed run leaves: its marker, partial bodies of every kind, an image it stored
        // and never journaled, and a journal file (here empty) no root names.
        let leftovers = [
            try plant("cache/aa/" + String(repeating: "a", count: 64) + ".0123456789ab.part", in: out),
            try plant("manifest.json.0123456789ab.part", in: out),
            try plant("archive/journal/20260101000000000-1a2b3c4d-0.ndjson.0123456789ab.part", in: out),
            try plant("archive/tables/" + String(repeating: "c", count: 64) + ".groups.0123456789ab.part", in: out),
            try plant("cache/bb/" + String(repeating: "b", count: 64) + ".png", in: out, [0x89, 0x50, 0x4E, 0x47]),
        ]
        // The keys the killed run declared (the first 64 bits of each, big-endian): its
        // intent file goes too. An unnamed image it did not declare is not looked for (no
        // run of this release leaves one); `--verify` reports it, `--repair` removes it.
        let declared: [UInt8] = Array(repeating: 0xAA, count: 8) + Array(repeating: 0xBB, count: 8)
        let intent = try plant("archive/intents/20260101000000000-1a2b3c4d-1", in: out, declared)
        let undeclared = try plant("cache/cc/" + String(repeating: "c", count: 64) + ".png", in: out, [0x89, 0x50, 0x4E, 0x47])
        _ = try plant(".unfinished", in: out, Array("host x pid 1 started 2026-01-01T00:00:00Z\n".utf8))
        _ = try plant("archive/journal/20260101000000000-1a2b3c4d-0.ndjson", in: out, [])
        let result = try await BinaryRunner.run(["--pages", "1", "--per-page", "5", "--out", out])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        for leftover in leftovers {
            #expect(!FileManager.default.fileExists(atPath: leftover), "\(leftover)")
        }
        #expect(!FileManager.default.fileExists(atPath: out + "/.unfinished"))
        #expect(!FileManager.default.fileExists(atPath: intent))
        #expect(FileManager.default.fileExists(atPath: undeclared))
        let verify = try await BinaryRunner.run(["manifest", "--verify", "--out", out])
        #expect(verify.status == 1 && verify.stdout.contains("orphaned"), "\(verify.stdout)\(verify.stderr)")
        try FileManager.default.removeItem(atPath: undeclared)
        #expect(ArchiveFiles.unnamedJournal(out).isEmpty, "\(ArchiveFiles.unnamedJournal(out))")
        #expect(OutputCheck.leftovers(out: out).isEmpty, "\(OutputCheck.leftovers(out: out))")
        let parts = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.hasSuffix(".part") }
        #expect(parts.isEmpty)
        // The next run says nothing of a journal: none is left to adopt.
        let again = try await BinaryRunner.run(["--pages", "1", "--per-page", "5", "--out", out])
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(!again.stderr.contains("journal"), "stderr: \(again.stderr)")
    }

    @Test func aFinishedRunLeavesNothingTemporary() async throws {
        let out = BinaryRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try await BinaryRunner.run(["--pages", "1", "--per-page", "5", "--out", out])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(OutputCheck.leftovers(out: out).isEmpty, "\(OutputCheck.leftovers(out: out))")
        #expect(!FileManager.default.fileExists(atPath: out + "/.unfinished"))
    }
}
