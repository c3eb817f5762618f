#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import FeedCrawlKit

@Suite("RunLock")
struct RunLockTests {
    @Test func secondOpenIsRefusedUntilRelease() throws {
        let dir = TestDirectory()
        let first = try RunLock(outDirectory: dir.path)
        #expect(first.isHeld)
        #expect(first.path == dir.file(".lock"))
        // A second open file description conflicts even within one process.
        #expect(throws: RunLock.Error.held) { try RunLock(outDirectory: dir.path) }
        first.release()
        first.release()  // idempotent
        #expect(!first.isHeld)
        let second = try RunLock(outDirectory: dir.path)
        #expect(second.isHeld)
        #expect(RunLock.recordedPID(path: second.path) == getpid())
    }

    @Test func deinitReleases() throws {
        let dir = TestDirectory()
        do {
            let lock = try RunLock(path: dir.file("l"))
            #expect(lock.isHeld)
        }
        let again = try RunLock(path: dir.file("l"))
        #expect(again.isHeld)
    }

    @Test func createsTheOutputDirectory() throws {
        let dir = TestDirectory()
        let out = dir.file("nested/out")
        let lock = try RunLock(outDirectory: out)
        #expect(FileIO.isDirectory(out))
        #expect(FileIO.exists(out + "/.lock"))
        lock.release()
        #expect(FileIO.exists(out + "/.lock"))  // the file stays; only the flock goes
    }

    @Test func ioErrorsAreReported() throws {
        let dir = TestDirectory()
        let error = #expect(throws: RunLock.Error.self) { try RunLock(path: dir.file("missing/dir/.lock")) }
        guard case .io(let io) = error else {
            Issue.record("expected an I/O error, got \(String(describing: error))")
            return
        }
        #expect(io.isNotFound)
        #expect(RunLock.Error.held.description.contains("lock held"))
    }
}
