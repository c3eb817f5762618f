import FeedCrawlSupport
import Testing

@testable import FeedCrawlStorage

/// The store in memory keeps every promise of a store (it stands in for one in the archive's and
/// the wrappers' tests), and fails when told to as a store would.
@Suite struct MemoryBackendTests {
    @Test func keepsEveryPromise() async throws {
        try await BackendConformance.check { Backends.memory() }
    }

    @Test func aTransientFailureLeavesTheStagedBodyWhole() async throws {
        let memory = MemoryBackend()
        try await BackendConformance.stagedBodyOutlivesTransientFailure(memory) { memory.failNext("save") }
        let pushedBack = MemoryBackend()
        try await BackendConformance.stagedBodyOutlivesTransientFailure(pushedBack) {
            pushedBack.failNext("save", kind: .pushedBack, retryAfter: 1)
        }
    }

    @Test func aFailureForGoodConsumesTheStagedBody() async throws {
        let memory = MemoryBackend()
        let target = try BackendConformance.handle(.sheet, "index.html")
        let staged = try memory.stage(target)
        try Array("<html>".utf8).withUnsafeBytes { try staged.write($0) }
        memory.failNext("save", kind: .refused)
        await #expect(throws: BackendError.self) { try await memory.save(target, staged: staged, options: SaveOptions()) }
        #expect(staged.size == 0)
        do {
            try await memory.save(target, staged: staged, options: SaveOptions())
            Issue.record("a consumed body was saved")
        } catch {
            #expect(error.kind == .refused)
        }
        #expect(try await memory.stat(target) == nil)
    }

    @Test func injectedFailuresCountDownAndSayWhatTheyAre() async throws {
        let memory = MemoryBackend()
        let root = try BackendConformance.handle(.state, "manifest.json")
        memory.failNext("load", count: 2, kind: .transient, retryAfter: 3)
        for _ in 0..<2 {
            do {
                _ = try await memory.load(root, range: nil, maxBytes: 10)
                Issue.record("the load was to fail")
            } catch {
                #expect(error.kind == .transient && error.retryAfter == 3 && error.operation == "load")
                #expect(error.description == "cannot load memory:manifest.json: injected failure")
            }
        }
        await #expect(throws: BackendError(.notFound, "load", location: "memory:manifest.json", reason: "no such file", code: 2)) {
            _ = try await memory.load(root, range: nil, maxBytes: 10)
        }
    }

    @Test func propertiesCanBeSet() async throws {
        let memory = MemoryBackend()
        #expect(memory.properties == BackendProperties(connections: 4, maxWaitingStaged: nil, canFillUp: false))
        memory.properties = BackendProperties(connections: 16, maxWaitingStaged: 32, canFillUp: true)
        #expect(memory.properties.connections == 16 && memory.properties.maxWaitingStaged == 32)
        #expect(Backends.memory(properties: BackendProperties(connections: 2)).properties.connections == 2)
    }
}
