import Foundation
import Testing

/// Partial downloads (`*.part` in the cache) are removed when the last run was interrupted, which
/// every run shows by leaving `manifest.journal` until its manifest is saved.
@Suite("feedcrawl temporary file cleanup", .serialized)
struct TemporaryFileCleanupTests {
    func plantLeftover(in out: String) throws -> String {
        let folder = out + "/cache/ab"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let leftover = folder + "/" + String(repeating: "a", count: 64) + ".0123456789ab.part"
        #expect(FileManager.default.createFile(atPath: leftover, contents: Data([1, 2, 3])))
        return leftover
    }

    @Test func leftoversOfAnInterruptedRunAreRemoved() async throws {
        let out = BinaryRunner.temporaryDirectory()
        let leftover = try plantLeftover(in: out)
        // What a killed run leaves: its journal (here empty) and a partial download.
        #expect(FileManager.default.createFile(atPath: out + "/manifest.journal", contents: Data()))
        let result = try await BinaryRunner.run(["--pages", "1", "--per-page", "5", "--out", out])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(!FileManager.default.fileExists(atPath: out + "/manifest.journal"))
        let parts = try FileManager.default.subpathsOfDirectory(atPath: out).filter { $0.hasSuffix(".part") }
        #expect(parts.isEmpty)
    }
}
