import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
@testable import FeedCrawlHTTP

/// The gate every feed request of a budget passes: fair between sources, cancellable, shared
/// per key and host. A fresh gate lets one request out until the first answer arrives, and an
/// abandoned request frees its slot: that budget admits exactly one request at a time, so each
/// `abandoned()` lets exactly the next waiter through.
@Suite("RateLimitGate")
struct RateLimitGateTests {
    /// Waits (yielding, then polling every 5 ms) until `condition` holds; false after `attempts` polls.
    static func eventually(attempts: Int = 4000, _ condition: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            await Task.yield()
        }
        for _ in 0..<attempts {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return condition()
    }

    @Test func waitersOfThreeSourcesAreLetThroughRoundRobinEachSourcesInOrder() async throws {
        let gate = RateLimitGate()
        try await gate.acquire(source: "holder")  // the one request in flight
        #expect(gate.state.inFlight == 1)
        let admitted = Locked<[String]>([])
        let arrivals = ["a1", "b1", "a2", "c1", "a3", "b2", "c2", "c3"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, name) in arrivals.enumerated() {
                group.addTask {
                    try await gate.acquire(source: String(name.prefix(1)))
                    admitted.withLock { $0.append(name) }
                }
                let queued = await Self.eventually { gate.waiting == index + 1 }
                try #require(queued, "\(name) never joined the queue")
            }
            #expect(admitted.withLock { $0 }.isEmpty)
            for step in 1...arrivals.count {
                gate.abandoned()  // the request in flight ends; the next one goes
                #expect(gate.waiting == arrivals.count - step)
                let through = await Self.eventually { admitted.withLock { $0.count } == step }
                try #require(through, "step \(step)")
                #expect(gate.state.inFlight == 1)
            }
            try await group.waitForAll()
        }
        // Sources take turns in the order they first came (a, b, c); each source's own in order.
        #expect(admitted.withLock { $0 } == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "c3"])
    }

    @Test func aCancelledWaiterLeavesTheQueueAndThrows() async throws {
        let gate = RateLimitGate()
        try await gate.acquire(source: "holder")
        let admitted = Locked<[String]>([])
        let first = Task {
            try await gate.acquire(source: "a")
            admitted.withLock { $0.append("a") }
        }
        try #require(await Self.eventually { gate.waiting == 1 })
        let second = Task {
            try await gate.acquire(source: "b")
            admitted.withLock { $0.append("b") }
        }
        try #require(await Self.eventually { gate.waiting == 2 })
        first.cancel()
        let error = await #expect(throws: CancellationError.self) { try await first.value }
        #expect(error != nil)
        #expect(gate.waiting == 1)
        #expect(gate.state.inFlight == 1)  // the cancelled request never counted
        gate.abandoned()
        try await second.value
        #expect(admitted.withLock { $0 } == ["b"])
        // A task cancelled before it asks is refused at once.
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.acquire(source: "c")
        }
        await #expect(throws: CancellationError.self) { try await late.value }
        #expect(gate.waiting == 0)
    }

    /// Cancellation at any moment of `acquire`: no waiter may stay queued after its task was
    /// cancelled (it would wait for a budget its run no longer wants).
    @Test func cancellationAtAnyMomentLeavesNoWaiterBehind() async throws {
        let gate = RateLimitGate()
        try await gate.acquire(source: "holder")
        var stuck = 0
        for round in 0..<20000 {
            let done = Locked(false)
            let task = Task {
                defer { done.withLock { $0 = true } }
                try await gate.acquire(source: "s\(round % 3)")
            }
            if round % 2 == 0 { await Task.yield() }
            task.cancel()
            // A cancelled acquire ends at once; one still queued after a while is stuck.
            let ended = await Self.eventually(attempts: 400) { done.withLock { $0 } }
            if !ended {
                stuck += 1
                while !done.withLock({ $0 }) {
                    gate.abandoned()  // let it through, so the test ends
                    try await Task.sleep(nanoseconds: 1_000_000)
                }
            }
            _ = try? await task.value
        }
        #expect(stuck == 0, "\(stuck) of 20000 cancelled waiters stayed queued")
        #expect(gate.waiting == 0)
    }

    @Test func answersSetTheBudget() async throws {
        let gate = RateLimitGate()
        try await gate.acquire(source: "a")
        let headers = [HTTPHeader(name: "X-RateLimit-Limit", value: "100"), HTTPHeader(name: "X-RateLimit-Remaining", value: "3"),
                       HTTPHeader(name: "X-RateLimit-Reset", value: "60")]
        gate.received(HTTPResponse(status: 200, headers: headers))
        #expect(gate.state.answered)
        #expect(gate.state.remaining == 3)
        #expect(gate.state.inFlight == 0)
        // Three may go at once now; the fourth waits for the window.
        for _ in 0..<3 { try await gate.acquire(source: "b") }
        #expect(gate.state.inFlight == 3)
        let fourth = Task { try await gate.acquire(source: "c") }
        try #require(await Self.eventually { gate.waiting == 1 })
        fourth.cancel()
        await #expect(throws: CancellationError.self) { try await fourth.value }
    }

    @Test func budgetsShareAGatePerKeyAndHost() {
        let budgets = RateBudgets()
        let a = budgets.gate(url: "https://pixabay.com/api/?q=x", key: "k1")
        #expect(budgets.gate(url: "https://PIXABAY.com/api/?page=2", key: "k1") === a)
        #expect(budgets.gate(url: "http://pixabay.com:8080/other", key: "k1") === a)  // the host, not the port or path
        #expect(budgets.gate(url: "https://pixabay.com/api/", key: "k2") !== a)
        #expect(budgets.gate(url: "https://pixabay.com/api/", key: nil) !== a)
        #expect(budgets.gate(url: "https://example.com/api/", key: "k1") !== a)
        let keyless = budgets.gate(url: "http://127.0.0.1:9/graphql", key: nil)
        #expect(budgets.gate(url: "http://127.0.0.1:10/graphql", key: nil) === keyless)
        #expect(budgets.gate(url: "http://localhost:9/graphql", key: nil) !== keyless)
    }
}
