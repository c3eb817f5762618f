import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

/// `HTTPRequest.addressPolicy` on a live engine.
///
/// These tests send packets only to loopback addresses. Every other address they name is one the
/// policy refuses before libcurl creates a socket for it; names are under `.localhost`, which
/// libcurl resolves to loopback itself, so even a `resolve` entry that failed to apply would not
/// reach the network.
@Suite("HTTPEngine address policy")
struct HTTPEngineAddressTests {
    static let strict = AddressPolicy.publicOnly(allowPrivate: false)
    static let lenient = AddressPolicy.publicOnly(allowPrivate: true)

    /// `/to?u=URL` redirects to URL; anything else answers "ok".
    static let handler: HTTPServer.Handler = { req in
        if req.path == "/to", let target = req.query["u"] {
            return ServerResponse(status: 302, headers: [("Location", target)])
        }
        return .text("ok")
    }

    static func request(_ url: String, policy: AddressPolicy, resolve: [String] = []) -> HTTPRequest {
        var request = HTTPRequest(url: url)
        request.addressPolicy = policy
        request.resolve = resolve
        // A refusal is immediate; anything slow is a failure to refuse.
        request.connectTimeoutMs = 3_000
        return request
    }

    static func refused(_ address: String, _ addressClass: AddressClass, by policy: AddressPolicy = strict) -> HTTPError {
        .addressRefused(address: address, rule: policy.refusal(of: addressClass) ?? "allowed?")
    }

    @Test func loopbackIsRefusedBeforeConnecting() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let error = await catchHTTPError {
                    try await engine.perform(Self.request(server.baseURL + "/x", policy: Self.strict))
                }
                #expect(error == Self.refused("127.0.0.1", .loopback))
                #expect(error?.isTransient == false)
                #expect(error?.description == "refused 127.0.0.1: loopback address (not fetched unless the feed is "
                    + "on such an address or --allow-private-addresses is given)")
                // A connection accepted after the refusal shows none was accepted before it.
                let ok = try await engine.perform(HTTPRequest(url: server.baseURL + "/x"))
                #expect(ok.status == 200)
            }
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 1)
        }
    }

    @Test func allowingPrivateAddressesReachesLoopback() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                // The engine's own socket (the open-socket callback creates it) carries the request.
                let r = try await engine.perform(Self.request(server.baseURL + "/x", policy: Self.lenient))
                #expect(r.status == 200)
                #expect(String(decoding: r.body, as: UTF8.self) == "ok")
                let redirected = try await engine.perform(
                    Self.request(server.baseURL + "/to?u=%2Fx", policy: Self.lenient))
                #expect(redirected.status == 200)
                #expect(redirected.redirectCount == 1)
            }
            #expect(server.requestCount == 3)
        }
    }

    /// Addresses no test may send to: each is refused before libcurl has a socket for it, both
    /// named in the URL and reached through a `resolve` entry.
    @Test(arguments: [
        ("169.254.169.254", "169.254.169.254", AddressClass.linkLocal, strict),
        ("169.254.169.254", "169.254.169.254", .linkLocal, lenient),
        ("[fe80::1]", "fe80::1", .linkLocal, lenient),
        ("[::ffff:169.254.169.254]", "::ffff:169.254.169.254", .linkLocal, lenient),
        ("[::ffff:a9fe:a9fe]", "::ffff:169.254.169.254", .linkLocal, lenient),
        ("10.0.0.1", "10.0.0.1", .private, strict),
        ("[fd00::2]", "fd00::2", .private, strict),
        ("0.0.0.0", "0.0.0.0", .unspecified, strict),
        ("[::]", "::", .unspecified, strict),
        ("[::1]", "::1", .loopback, strict),
    ])
    func refusedAddresses(address: String, shown: String, addressClass: AddressClass, policy: AddressPolicy) async throws {
        try await HTTPEngine.withEngine { engine in
            let expected = Self.refused(shown, addressClass, by: policy)
            await expectHTTPError(expected) {
                try await engine.perform(Self.request("http://\(address)/latest/meta-data/", policy: policy))
            }
            await expectHTTPError(expected) {
                try await engine.perform(Self.request(
                    "http://metadata.localhost/latest/meta-data/", policy: policy,
                    resolve: ["metadata.localhost:80:\(address)"]))
            }
        }
    }

    @Test func redirectToLinkLocalIsRefused() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let target = "http://metadata.localhost/latest/meta-data/"
                let url = server.baseURL + "/to?u=" + percentEncoded(target)
                await expectHTTPError(Self.refused("169.254.169.254", .linkLocal, by: Self.lenient)) {
                    try await engine.perform(Self.request(
                        url, policy: Self.lenient, resolve: ["metadata.localhost:80:169.254.169.254"]))
                }
                let literal = server.baseURL + "/to?u=" + percentEncoded("http://[::ffff:169.254.169.254]/")
                await expectHTTPError(Self.refused("::ffff:169.254.169.254", .linkLocal, by: Self.lenient)) {
                    try await engine.perform(Self.request(literal, policy: Self.lenient))
                }
            }
            #expect(server.requestCount == 2)
        }
    }

    /// A name with several addresses: a refused one does not stop another from connecting, and
    /// when every one is refused the refusal (of the first tried) is the error, not "couldn't
    /// connect".
    @Test func namesWithSeveralAddresses() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let url = "http://mixed.localhost:\(server.port)/x"
                let r = try await engine.perform(Self.request(
                    url, policy: Self.lenient, resolve: ["mixed.localhost:\(server.port):[fe80::1],127.0.0.1"]))
                #expect(r.status == 200)
                await expectHTTPError(Self.refused("fe80::1", .linkLocal)) {
                    try await engine.perform(Self.request(
                        "http://all.localhost:\(server.port)/x", policy: Self.strict,
                        resolve: ["all.localhost:\(server.port):[fe80::1],127.0.0.1,10.0.0.1"]))
                }
                // libcurl's own name for loopback (127.0.0.1 and ::1).
                let error = await catchHTTPError {
                    try await engine.perform(Self.request("http://localhost:\(server.port)/x", policy: Self.strict))
                }
                guard case .addressRefused(let address, let rule) = error else {
                    Issue.record("expected addressRefused, got \(String(describing: error))")
                    return
                }
                #expect(["127.0.0.1", "::1"].contains(address))
                #expect(rule == Self.strict.refusal(of: .loopback))
                // A refusal stays with its hop: when a later hop cannot connect (nothing listens
                // on port 1), that is the error.
                let onward = "http://onward.localhost:\(server.port)/to?u=" + percentEncoded("http://127.0.0.1:1/")
                let failed = await catchHTTPError {
                    try await engine.perform(Self.request(
                        onward, policy: Self.lenient, resolve: ["onward.localhost:\(server.port):[fe80::1],127.0.0.1"]))
                }
                guard case .connectionFailed = failed else {
                    Issue.record("expected connectionFailed, got \(String(describing: failed))")
                    return
                }
            }
            #expect(server.connectionCount == 2)
            #expect(server.requestCount == 2)
        }
    }

    /// libcurl would send a request over an idle connection to the same host and port that a
    /// request with another policy opened: the pre-request check refuses it before it is sent.
    @Test func reusedConnectionIsCheckedToo() async throws {
        try await withHTTPServer(handler: Self.handler) { server in
            try await HTTPEngine.withEngine { engine in
                let url = server.baseURL + "/x"
                let first = try await engine.perform(HTTPRequest(url: url))
                #expect(first.status == 200)
                await expectHTTPError(Self.refused("127.0.0.1", .loopback)) {
                    try await engine.perform(Self.request(url, policy: Self.strict))
                }
                #expect(server.requestCount == 1)
                let after = try await engine.perform(HTTPRequest(url: url))
                #expect(after.status == 200)
            }
            #expect(server.requestCount == 2)
        }
    }
}
