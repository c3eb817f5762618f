import Foundation
import TestSupport

/// The built `feedcrawl` binary running in the background: signals, live stderr, exit.
final class BinaryProcess: @unchecked Sendable {
    struct Exit {
        var status: Int32
        /// Whether a signal ended it (then `status` is the signal number).
        var signaled: Bool
        var stdout: String
        var stderr: String
    }

    private let child: ChildProcess

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        var changes: [String: String?] = ["PIXABAY_KEY": nil]
        for (key, value) in environment { changes[key] = value }
        child = try ChildProcess(
            executable: BinaryRunner.binaryPath, arguments: arguments,
            environment: ChildProcess.environment(changes))
    }

    var pid: Int32 { child.pid }

    /// What the process wrote to stdout so far.
    var stdoutSoFar: String { String(decoding: child.stdoutSoFar, as: UTF8.self) }

    /// What the process wrote to stderr so far.
    var stderrSoFar: String { String(decoding: child.stderrSoFar, as: UTF8.self) }

    /// Sends `signal` while it runs; says what happened ("sent", "kill: errno N", "already reaped").
    @discardableResult
    func send(_ signal: Int32) -> String {
        child.send(signal)
    }

    /// Waits for the process to end (SIGKILL after `timeout` seconds), without blocking a thread.
    func exit(timeout: TimeInterval = 60) async -> Exit {
        let exit = await child.exit(timeout: timeout)
        return Exit(
            status: exit.status, signaled: exit.signaled,
            stdout: String(decoding: exit.stdout, as: UTF8.self), stderr: String(decoding: exit.stderr, as: UTF8.self))
    }

    /// Runs the binary to its end.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Exit {
        try await BinaryProcess(arguments, environment: environment).exit(timeout: timeout)
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
