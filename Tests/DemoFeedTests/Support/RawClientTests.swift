import Glibc
import Testing
@testable import DemoFeed
import FeedCrawlKit
import FeedCrawlSupport

@Suite("Raw test client")
struct RawClientTests {
    /// A refused connect closes its socket exactly once. (Closing it again in `deinit`, after the
    /// number was reused, closed whatever a concurrent test had just opened: a CI run failed
    /// `resetSendsNothing` that way.) Another thread keeps opening descriptors, which take the
    /// lowest free number, and checks they stay open while connects are refused.
    @Test func aRefusedConnectClosesItsSocketOnce() throws {
        // A port held bound but not listening refuses every connect, and no other test's server
        // can be given it meanwhile (a stopped server's port could be).
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(holder >= 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let state = LoopState()
        guard let opener = Threads.start({
            while !state.lock.withLock({ state.stop }) {
                let fd = open("/dev/null", O_RDONLY)
                guard fd >= 0 else { continue }
                var closedBehindOurBack = false
                for _ in 0..<50 where fcntl(fd, F_GETFD) == -1 {
                    closedBehindOurBack = true
                    break
                }
                // Closed behind our back: the number may be someone else's by now; leave it.
                if closedBehindOurBack { state.lock.withLock { state.lost += 1 } } else { close(fd) }
            }
        }) else {
            Issue.record("cannot start a thread")
            return
        }
        var refused = 0
        for _ in 0..<5_000 {
            do { _ = try RawClient(port: port) } catch { refused += 1 }
        }
        state.lock.withLock { state.stop = true }
        Threads.join(opener)
        #expect(refused == 5_000)
        #expect(state.lock.withLock { state.lost } == 0)
    }

    private final class LoopState: @unchecked Sendable {
        let lock = Lock()
        var stop = false
        var lost = 0
    }
}
