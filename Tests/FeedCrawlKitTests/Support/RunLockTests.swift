#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

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

    /// A copy of the lock's descriptor, as a child process being spawned by another thread holds
    /// until its exec: the release still frees OUT for the next run at once.
    @Test func aReleaseFreesTheLockWhileACopyOfItsDescriptorIsStillOpen() throws {
        let dir = TestDirectory()
        let first = try RunLock(outDirectory: dir.path)
        let copy = try #require(Self.duplicateDescriptor(of: first.path))
        defer { close(copy) }
        first.release()
        let second = try RunLock(outDirectory: dir.path)
        #expect(second.isHeld)
    }

    /// A `dup` of this process's descriptor open on `path` (found in /proc/self/fd): it shares the
    /// open file description, and so its `flock`, as a forked child's inherited copy does.
    static func duplicateDescriptor(of path: String) -> Int32? {
        let target = URL(fileURLWithPath: path).standardizedFileURL.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let fd = Int32(name),
                  let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                  linked == target else { continue }
            let copy = dup(fd)
            if copy >= 0 { return copy }
        }
        return nil
    }

    @Test func thePIDIsRecordedWhileHeldAndRemovedOnRelease() throws {
        let dir = TestDirectory()
        let lock = try RunLock(outDirectory: dir.path)
        #expect(RunLock.livePID(path: lock.path) == getpid())
        lock.release()
        #expect(RunLock.recordedPID(path: lock.path) == nil)
        #expect(RunLock.livePID(path: lock.path) == nil)
        // A PID left by a killed run (no such process) is not live; a shared lock removes it.
        let stale = Int32.max - 1
        #expect(writeText("\(stale)\n", to: lock.path))
        #expect(RunLock.recordedPID(path: lock.path) == stale)
        #expect(RunLock.livePID(path: lock.path) == nil)
        let shared = try RunLock(path: lock.path, shared: true)
        #expect(RunLock.recordedPID(path: lock.path) == nil)
        shared.release()
    }

    private func writeText(_ text: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
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

    /// A refused lock closes its descriptor exactly once. (Closing it again in deinit, after the
    /// number was reused, closed other threads' files and sockets: the test suite's "couldn't
    /// connect" and "send failed" flakes.) Another thread keeps opening descriptors, which take
    /// the lowest free number, and checks they stay open while locks are refused.
    @Test func aRefusedLockClosesItsDescriptorOnce() throws {
        let dir = TestDirectory()
        let holder = try RunLock(outDirectory: dir.path)
        defer { holder.release() }
        let stop = Locked(false)
        let lost = Locked(0)
        let finished = DispatchSemaphore(value: 0)
        // A thread of its own, not the dispatch pool the test runner's tasks also run on.
        Thread {
            defer { finished.signal() }
            while !stop.withLock({ $0 }) {
                let fd = open("/dev/null", O_RDONLY)
                guard fd >= 0 else { continue }
                var closedBehindOurBack = false
                for _ in 0..<50 where fcntl(fd, F_GETFD) == -1 {
                    closedBehindOurBack = true
                    break
                }
                // Closed behind our back: the number may be someone else's by now; leave it.
                if closedBehindOurBack { lost.withLock { $0 += 1 } } else { close(fd) }
            }
        }.start()
        var refused = 0
        for _ in 0..<20_000 {
            do { _ = try RunLock(outDirectory: dir.path) } catch .held { refused += 1 } catch {}
        }
        stop.withLock { $0 = true }
        finished.wait()
        #expect(refused == 20_000)
        #expect(lost.withLock { $0 } == 0)
    }
}
