import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
import FeedCrawlHTTP

/// A scratch directory under /tmp, removed with `remove()`.
struct TempDir {
    let path: String

    init() throws {
        var template = Array("/tmp/fc-http-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw FileSystemError("mkdtemp", path: "/tmp/fc-http-XXXXXX")
        }
        path = String(cString: made)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Names of the entries in the directory.
    func entries() -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    func remove() {
        for name in entries() { unlink(file(name)) }
        rmdir(path)
    }
}

/// A test `BodySink` writing to a file: created (`O_CREAT|O_TRUNC`) when the engine makes it,
/// closed on `close()` or `discard()` (which unlinks it).
final class FileSink: BodySink, @unchecked Sendable {
    let path: String
    private var fd: Int32

    init(path: String) throws(FileSystemError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystemError("open", path: path) }
        self.path = path
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// A destination whose sinks write to `path`.
    static func destination(_ path: String) -> HTTPRequest.Destination {
        .sink { try FileSink(path: path) }
    }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        guard Glibc.write(fd, chunk.baseAddress, chunk.count) == chunk.count else {
            throw FileSystemError("write", path: path)
        }
    }

    func discard() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
        unlink(path)
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}

func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    return out
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// Deterministic pseudo-random bytes.
func patternBytes(_ count: Int, seed: UInt32 = 1) -> [UInt8] {
    var x = seed &* 2_654_435_761 | 1
    return (0..<count).map { _ in
        x ^= x << 13; x ^= x >> 17; x ^= x << 5
        return UInt8(truncatingIfNeeded: x)
    }
}

/// Polls `condition` every 5 ms until it holds or `seconds` pass; returns whether it held.
/// Returns as soon as `condition` holds; the bound is generous because a loaded CI machine
/// can take seconds to schedule a request.
func waitUntil(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Expects `body` to throw exactly `expected`.
func expectHTTPError(
    _ expected: HTTPError,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> HTTPResponse
) async {
    do {
        let response = try await body()
        Issue.record("expected \(expected), got status \(response.status)", sourceLocation: sourceLocation)
    } catch let error as HTTPError {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The HTTPError `body` throws, or nil (recording an issue) when it throws something else or nothing.
func catchHTTPError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> HTTPResponse
) async -> HTTPError? {
    do {
        let response = try await body()
        Issue.record("expected an HTTPError, got status \(response.status)", sourceLocation: sourceLocation)
    } catch let error as HTTPError {
        return error
    } catch {
        Issue.record("expected an HTTPError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
