import Glibc
import Testing
@testable import DemoFeed

@Suite("Raw test client")
struct RawClientTests {
    /// A refused connect closes its socket exactly once. (Closing it again in `deinit`, after the
    /// number was reused, closed whatever a concurrent test had just opened: a CI run failed
    /// `resetSendsNothing` that way.) Another thread keeps opening descriptors, which take the
    /// lowest free number, and checks they stay open while connects are refused.
    @Test func aRefusedConnectClosesItsSocketOnce() throws {
        let server = try HTTPServer { _ in .text("") }
        let port = server.port
        server.stop()
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
