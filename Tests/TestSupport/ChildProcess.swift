import Foundation
import Glibc

/// A child process started with `posix_spawn`, its stdout and stderr read on threads of their
/// own, stdin from /dev/null.
///
/// Not Foundation's `Process` and `Pipe`: under many concurrent tests they have closed file
/// descriptors twice (swiftlang/swift#57827), which closes whatever another test had just opened
/// under the same number, a socket for example. Here every descriptor has one owner and is
/// closed once: the write ends right after the spawn, each read end by its reader at EOF.
public final class ChildProcess: @unchecked Sendable {
    public struct Exit: Sendable {
        /// The exit code, or the signal number when `signaled`.
        public var status: Int32
        public var signaled: Bool
        public var stdout: [UInt8]
        public var stderr: [UInt8]
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public let pid: pid_t
    private let lock = NSLock()
    private var out: [UInt8] = []
    private var err: [UInt8] = []
    private var waitStatus: Int32?
    private let readers = DispatchGroup()

    /// Starts `executable` with `arguments` and exactly `environment`; with `mergeStderr`, stderr
    /// goes into the stdout pipe.
    public init(executable: String, arguments: [String], environment: [String: String], mergeStderr: Bool = false) throws {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard Self.pipe2(&outPipe, O_CLOEXEC) == 0 else { throw Failure(description: "pipe2: errno \(errno)") }
        if !mergeStderr {
            guard Self.pipe2(&errPipe, O_CLOEXEC) == 0 else {
                close(outPipe[0])
                close(outPipe[1])
                throw Failure(description: "pipe2: errno \(errno)")
            }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // dup2 clears close-on-exec on 1 and 2; the pipes' own descriptors close at exec.
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, mergeStderr ? outPipe[1] : errPipe[1], 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // The child starts with no signal blocked and the usual dispositions, whatever the
        // spawning thread had: a test process that blocks SIGTERM would otherwise hand that on,
        // and a daemon the child starts (tmux) could then not be stopped by SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(outPipe[1])
        if !mergeStderr { close(errPipe[1]) }
        guard rc == 0 else {
            close(outPipe[0])
            if !mergeStderr { close(errPipe[0]) }
            throw Failure(description: "posix_spawn \(executable): error \(rc)")
        }
        pid = child
        read(outPipe[0], isError: false)
        if !mergeStderr { read(errPipe[0], isError: true) }
    }

    /// glibc's `pipe2`, which Swift's Glibc module does not export (it is a GNU extension): close-
    /// on-exec from the start, so a child spawned by another test meanwhile cannot inherit the
    /// write end and keep our reader from seeing EOF.
    private static let pipe2: @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else {
            preconditionFailure("glibc has no pipe2")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    }()

    /// The environment of this test process with `changes` applied (nil removes a variable).
    public static func environment(_ changes: [String: String?]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in changes { env[key] = value }
        return env
    }

    private func read(_ fd: Int32, isError: Bool) {
        readers.enter()
        // A thread of its own: blocking reads on the dispatch pool (as many threads as cores)
        // would hold up every other reader and test.
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                lock.lock()
                if isError { err += buffer[0..<n] } else { out += buffer[0..<n] }
                lock.unlock()
            }
            close(fd)
            readers.leave()
        }
    }

    /// Whether the child has not ended yet (it is reaped once it has).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if waitStatus != nil { return false }
        var status: Int32 = 0
        let rc = waitpid(pid, &status, WNOHANG)
        if rc == pid || (rc < 0 && errno == ECHILD) {
            waitStatus = rc == pid ? status : 0
            return false
        }
        return true
    }

    /// Sends `signal` while the child runs (never to a reaped pid that may have been reused).
    /// Returns what happened, for a test's failure message: "sent", "kill: errno N", or
    /// "already reaped".
    @discardableResult
    public func send(_ signal: Int32) -> String {
        lock.lock()
        defer { lock.unlock() }
        guard waitStatus == nil else { return "already reaped" }
        return kill(pid, signal) == 0 ? "sent" : "kill: errno \(errno)"
    }

    /// What the child wrote to stdout so far.
    public var stdoutSoFar: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return out
    }

    /// What the child wrote to stderr so far.
    public var stderrSoFar: [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        return err
    }

    /// Waits until the child ends and its output is read (SIGKILL after `timeout` seconds),
    /// polling, so that no thread of the cooperative pool (as many as cores) is blocked: the
    /// only wait there is, because a blocked pool thread stalls every test running beside it.
    public func exit(timeout: Double) async -> Exit {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        if isRunning { send(SIGKILL) }
        while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
        // The readers end at EOF, right after the exit.
        for _ in 0..<2000 where readers.wait(timeout: .now()) == .timedOut {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return collect()
    }

    private func collect() -> Exit {
        lock.lock()
        defer { lock.unlock() }
        let status = waitStatus ?? 0
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = status & 0x7F
        return Exit(
            status: signal == 0 ? (status >> 8) & 0xFF : signal, signaled: signal != 0, stdout: out, stderr: err)
    }
}
