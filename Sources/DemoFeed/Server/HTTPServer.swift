/// A small blocking HTTP/1.1 server on POSIX sockets (one thread per connection), for loopback
/// tests and the demo feed. Supports keep-alive and pipelining, `Connection: close`, HEAD,
/// Content-Length request bodies (limit 1 MiB → 413; chunked request bodies → 501), request
/// heads up to 64 KiB (→ 431), `Expect: 100-continue`, and fault-injecting response bodies
/// (see `ServerResponse.Body`). Writes Date, Content-Length/Transfer-Encoding and a default
/// Content-Type (application/octet-stream) when the handler gives none.
public final class HTTPServer: @unchecked Sendable {
    /// Answers one request; runs on the connection's own thread and may block.
    public typealias Handler = @Sendable (ServerRequest) -> ServerResponse

    private let core: ServerCore

    /// Binds and listens immediately (port 0 = chosen by the OS; default host 127.0.0.1) and starts serving.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, handler: @escaping Handler) throws {
        core = try ServerCore(host: host, port: port, handler: handler)
        try core.start()
    }

    deinit {
        core.stop()
    }

    /// The bound port.
    public var port: UInt16 { core.port }

    /// "http://HOST:PORT".
    public var baseURL: String { "http://\(core.host):\(core.port)" }

    /// Number of requests answered so far (thread-safe; counted before the response is sent).
    public var requestCount: Int { core.counts().requests }

    /// Number of connections accepted so far (thread-safe).
    public var connectionCount: Int { core.counts().connections }

    /// Closes the listener and all connections (even mid-response) and joins all threads. Idempotent; also run by deinit.
    public func stop() {
        core.stop()
    }
}

/// Runs `body` with a fresh server on 127.0.0.1 (OS-chosen port), stopping it afterwards even on error.
public func withHTTPServer<T>(handler: @escaping HTTPServer.Handler,
                              _ body: (HTTPServer) async throws -> T) async throws -> T {
    let server = try HTTPServer(handler: handler)
    defer { server.stop() }
    return try await body(server)
}
