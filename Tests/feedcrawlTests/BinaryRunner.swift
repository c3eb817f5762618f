import Foundation
import TestSupport

/// Runs the built `feedcrawl` binary and captures what it prints.
struct BinaryRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary: `FEEDCRAWL_BIN`, or the debug build next to this package.
    static var binaryPath: String {
        if let path = ProcessInfo.processInfo.environment["FEEDCRAWL_BIN"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/feedcrawl").path
    }

    /// Runs the binary to its end (SIGKILL after `timeout` seconds). Waits without blocking a
    /// thread of the cooperative pool: with 2 cores, two tests blocked in a minute-long run
    /// stalled every other test of the process (timing checks elsewhere then failed).
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Result {
        var changes: [String: String?] = ["PIXABAY_KEY": nil]
        for (key, value) in environment { changes[key] = value }
        let child = try ChildProcess(
            executable: binaryPath, arguments: arguments, environment: ChildProcess.environment(changes))
        let exit = await child.exit(timeout: timeout)
        return Result(
            status: exit.status,
            stdout: String(decoding: exit.stdout, as: UTF8.self),
            stderr: String(decoding: exit.stderr, as: UTF8.self))
    }

    static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "feedcrawl-e2e-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
