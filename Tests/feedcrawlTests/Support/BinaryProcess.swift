import Foundation

/// The built `feedcrawl` binary running in the background: signals, live stderr, exit.
final class BinaryProcess: @unchecked Sendable {
    struct Exit {
        var status: Int32
        /// Whether a signal ended it (then `status` is the signal number).
        var signaled: Bool
        var stdout: String
        var stderr: String
    }

    private let process = Process()
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    private let readers = DispatchGroup()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: BinaryRunner.binaryPath)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["PIXABAY_KEY"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        read(out.fileHandleForReading, isError: false)
        read(err.fileHandleForReading, isError: true)
    }

    private func read(_ handle: FileHandle, isError: Bool) {
        readers.enter()
        // A thread of its own: blocking reads on the dispatch pool (as many threads as cores)
        // would hold up every other reader and test.
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                lock.lock()
                if isError { errData.append(data) } else { outData.append(data) }
                lock.unlock()
            }
            readers.leave()
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// What the process wrote to stderr so far.
    var stderrSoFar: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errData, as: UTF8.self)
    }

    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end (SIGKILL after `timeout` seconds), without blocking a thread.
    func exit(timeout: TimeInterval = 60) async -> Exit {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        if process.isRunning { send(SIGKILL) }
        while process.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        // The readers end at EOF, right after the exit.
        for _ in 0..<1000 where readers.wait(timeout: .now()) == .timedOut {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let (out, err) = lock.withLock { (outData, errData) }
        return Exit(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }

    /// Runs the binary to its end.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
    ) async throws -> Exit {
        try await BinaryProcess(arguments, environment: environment).exit(timeout: timeout)
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
