import FuzzSupport
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// Replays the fuzz targets' seeds (`Sources/Fuzz/Corpus/<target>/`) and every input a fuzz run once
/// failed on (`Sources/Fuzz/Regressions/<target>/`) through the same checks the targets run.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let checks = FuzzChecks.targets

    /// The package's `Sources/Fuzz/` folder.
    static var fuzzDirectory: String {
        var path = #filePath
        for _ in 0..<4 { path = FileIO.directoryName(of: path) }
        return path + "/Sources/Fuzz"
    }

    static func inputs(_ target: String) -> [String] {
        ["Corpus", "Regressions"].flatMap { kind in
            let dir = fuzzDirectory + "/" + kind + "/" + target
            return TestDirectory.list(dir).map { dir + "/" + $0 }
        }
    }

    @Test(arguments: checks.keys.sorted())
    func savedInputsPass(_ target: String) throws {
        let inputs = Self.inputs(target)
        #expect(!inputs.isEmpty, "no seeds for \(target)")
        for path in inputs {
            let bytes = try FileIO.read(path)
            let violations = Self.checks[target]!(bytes)
            #expect(violations.isEmpty, "\(path): \(violations)")
        }
    }
}
