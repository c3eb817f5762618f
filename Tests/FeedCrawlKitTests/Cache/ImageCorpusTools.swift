import Foundation
import Glibc
@testable import FeedCrawlKit
import FeedCrawlSupport

/// A program from a Debian package that the image corpus tests run: an encoder or a judge.
struct DebianTool: Sendable {
    let name: String
    /// The Debian package that installs it (`scripts/deps --tests` installs them all).
    let package: String

    /// Where Debian installs it. Not a PATH search: a wrapper elsewhere on PATH (a sandbox may
    /// put one in /usr/local/bin) must not stand in for the real program.
    var path: String { "/usr/bin/" + name }
    var isInstalled: Bool { access(path, X_OK) == 0 }

    static let convert = DebianTool(name: "convert", package: "imagemagick")
    static let cjpeg = DebianTool(name: "cjpeg", package: "libjpeg-turbo-progs")
    static let djpeg = DebianTool(name: "djpeg", package: "libjpeg-turbo-progs")
    static let jpeginfo = DebianTool(name: "jpeginfo", package: "jpeginfo")
    static let pngcheck = DebianTool(name: "pngcheck", package: "pngcheck")
    static let gifsicle = DebianTool(name: "gifsicle", package: "gifsicle")
    static let cwebp = DebianTool(name: "cwebp", package: "webp")
    static let dwebp = DebianTool(name: "dwebp", package: "webp")
    static let img2webp = DebianTool(name: "img2webp", package: "webp")
    static let gif2webp = DebianTool(name: "gif2webp", package: "webp")
    static let webpinfo = DebianTool(name: "webpinfo", package: "webp")
}

/// Why a corpus test cannot run or a tool misbehaved; thrown, so the test fails with this text.
struct CorpusFailure: Error, CustomStringConvertible {
    let description: String
}

/// What a finished tool left: its exit status and output.
struct ToolRun {
    /// The exit code, or 128 + the signal number.
    var status: Int32
    var stdout: String
    var stderr: String
    var output: String { stdout + stderr }
}

/// A scratch directory where the corpus is encoded, damaged and judged. Tools run one at a time
/// with `posix_spawn`, their stdout and stderr sent to files (no pipes, no reader threads), and
/// are waited for by polling so that no thread of the test pool blocks.
final class CorpusBench {
    let directory = TestDirectory()
    private var runs = 0

    /// Fails, naming the Debian packages to install, unless every one of `tools` is installed.
    init(tools: [DebianTool]) throws {
        let missing = tools.filter { !$0.isInstalled }
        if !missing.isEmpty {
            let names = missing.map { "\($0.path) (Debian package \($0.package))" }.joined(separator: ", ")
            let packages = Set(missing.map(\.package)).sorted().joined(separator: " ")
            throw CorpusFailure(description:
                "missing \(names): apt-get install \(packages) (scripts/deps --tests installs them)")
        }
    }

    func path(_ name: String) -> String { directory.file(name) }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
    }

    func read(_ name: String) throws -> [UInt8] { try FileIO.read(path(name)) }

    /// Runs `tool` with `arguments` in the scratch directory, stdin from /dev/null.
    func run(_ tool: DebianTool, _ arguments: [String], timeout: Double = 120) async throws -> ToolRun {
        runs += 1
        let outPath = path(".run\(runs).out"), errPath = path(".run\(runs).err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([tool.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, tool.path, &actions, nil, argv, environ)
        guard rc == 0 else { throw CorpusFailure(description: "posix_spawn \(tool.path): error \(rc)") }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0 && errno != EINTR { throw CorpusFailure(description: "waitpid \(tool.name): errno \(errno)") }
            if Date() > deadline { kill(pid, SIGKILL) }
            try await Task.sleep(for: .milliseconds(2))
        }
        let signal = status & 0x7F
        let text = { (file: String) in String(decoding: (try? FileIO.read(file)) ?? [], as: UTF8.self) }
        return ToolRun(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, stdout: text(outPath), stderr: text(errPath))
    }

    /// Runs an encoder that writes `output` and returns that file; fails unless it exits 0.
    @discardableResult
    func make(_ output: String, _ tool: DebianTool, _ arguments: [String]) async throws -> [UInt8] {
        let run = try await run(tool, arguments)
        guard run.status == 0, FileIO.exists(path(output)) else {
            throw CorpusFailure(description: "\(tool.name) \(arguments.joined(separator: " ")) exited \(run.status): \(run.output)")
        }
        return try read(output)
    }
}
