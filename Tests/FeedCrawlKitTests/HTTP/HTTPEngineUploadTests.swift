import CCurl
import DemoFeed
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport
@testable import FeedCrawlHTTP

/// PUT bodies streamed from a file, HEAD and DELETE, and SigV4 signing by libcurl.
@Suite("HTTPEngine uploads, HEAD, DELETE, SigV4")
struct HTTPEngineUploadTests {
    @Test func aBodyFileIsStreamedWithItsLength() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let payload = patternBytes(300_000, seed: 7)
        writeFile(dir.file("body.bin"), payload)
        let seen = Locked<[(method: String, length: String?, body: [UInt8])]>([])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0.append((req.method, req.header("content-length"), req.body)) }
            return .text("stored", status: 201)
        }) { server in
            try await HTTPEngine.withEngine(configuration: .init(maxConcurrentTransfers: 1)) { engine in
                var request = HTTPRequest(url: server.baseURL + "/o", method: .put)
                request.bodyFile = dir.file("body.bin")
                let r = try await engine.perform(request)
                #expect(r.status == 201)
                // An empty file goes out as an empty body with Content-Length: 0; the reused handle
                // then runs a plain GET.
                writeFile(dir.file("empty"), [])
                request.bodyFile = dir.file("empty")
                #expect(try await engine.perform(request).status == 201)
                #expect(try await engine.perform(HTTPRequest(url: server.baseURL + "/g")).status == 201)
            }
        }
        let requests = seen.withLock { $0 }
        try #require(requests.count == 3)
        #expect(requests[0].method == "PUT")
        #expect(requests[0].length == "300000")
        #expect(requests[0].body == payload)
        #expect(requests[1].method == "PUT")
        #expect(requests[1].length == "0")
        #expect(requests[1].body.isEmpty)
        #expect(requests[2].method == "GET")
        #expect(requests[2].body.isEmpty)
    }

    @Test func aBodyFileThatCannotBeOpenedFailsBeforeAnythingIsSent() async throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try await withHTTPServer(handler: { _ in .text("ok") }) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/o", method: .put)
                request.bodyFile = dir.file("missing.bin")
                let error = await catchHTTPError { try await engine.perform(request) }
                #expect(error == .bodyFile(path: dir.file("missing.bin"), problem: "No such file or directory (errno 2)"))
                #expect(error?.description == "cannot send \(dir.file("missing.bin")): No such file or directory (errno 2)")
                #expect(error?.isTransient == false)
                request.bodyFile = dir.path
                let directory = await catchHTTPError { try await engine.perform(request) }
                #expect(directory == .bodyFile(path: dir.path, problem: "not a regular file"))
                #expect(server.requestCount == 0)
            }
        }
    }

    @Test func aBodyFileThatShrinksWhileSentAbortsTheTransferSayingSo() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        writeFile(dir.file("b.bin"), patternBytes(10))
        var request = HTTPRequest(url: "http://127.0.0.1:9/", method: .put)
        request.bodyFile = dir.file("b.bin")
        let transfer = Transfer(request: request)
        var upload = try UploadFile.open(dir.file("b.bin"))
        #expect(upload.size == 10)
        upload.size = 16  // as if the file lost 6 bytes after fstat
        transfer.upload = upload
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(buffer.withUnsafeMutableBytes { transfer.sendBody(into: $0) } == 8)
        #expect(buffer.withUnsafeMutableBytes { transfer.sendBody(into: $0) } == 2)
        #expect(buffer.withUnsafeMutableBytes { transfer.sendBody(into: $0) } == Int(CURL_READFUNC_ABORT))
        #expect(transfer.failure == .bodyFile(path: dir.file("b.bin"), problem: "ended after 10 of 16 bytes while it was sent"))
        // libcurl rewinds to resend (a redirect, an auth retry); it cannot seek past the end.
        #expect(transfer.seekBody(to: 0, origin: SEEK_SET) == Int32(CURL_SEEKFUNC_OK))
        #expect(transfer.seekBody(to: 17, origin: SEEK_SET) == Int32(CURL_SEEKFUNC_CANTSEEK))
        #expect(buffer.withUnsafeMutableBytes { transfer.sendBody(into: $0) } == 8)
        #expect(Array(buffer) == Array(patternBytes(10).prefix(8)))
    }

    @Test func bodiesAndBodyFilesGoOnlyWhereTheyBelong() async throws {
        try await HTTPEngine.withEngine { engine in
            var head = HTTPRequest(url: "http://127.0.0.1:9/", method: .head, body: [1])
            await expectHTTPError(.invalidRequest("a HEAD request cannot carry a body")) { try await engine.perform(head) }
            head.body = nil
            head.bodyFile = "/etc/hostname"
            await expectHTTPError(.invalidRequest("a body file is sent only with PUT, not HEAD")) {
                try await engine.perform(head)
            }
            let delete = HTTPRequest(url: "http://127.0.0.1:9/", method: .delete, body: [])
            await expectHTTPError(.invalidRequest("a DELETE request cannot carry a body")) { try await engine.perform(delete) }
            var both = HTTPRequest(url: "http://127.0.0.1:9/", method: .put, body: [1])
            both.bodyFile = "/etc/hostname"
            await expectHTTPError(.invalidRequest("a request cannot carry both a body and a body file")) {
                try await engine.perform(both)
            }
        }
    }

    @Test func headAndDeleteSendTheirMethods() async throws {
        let seen = Locked<[String]>([])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0.append(req.method) }
            if req.method == "DELETE" { return ServerResponse(status: 204) }
            return ServerResponse(status: 200, headers: [("ETag", "\"e1\"")], body: .bytes(patternBytes(5000)))
        }) { server in
            try await HTTPEngine.withEngine(configuration: .init(maxConcurrentTransfers: 1)) { engine in
                // The cap counts body bytes: a HEAD has none, whatever its Content-Length says.
                var headRequest = HTTPRequest(url: server.baseURL + "/o", method: .head)
                headRequest.maxBytes = 1000
                let head = try await engine.perform(headRequest)
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                #expect(head.contentLength == 5000)
                #expect(head.etag == "\"e1\"")
                let delete = try await engine.perform(HTTPRequest(url: server.baseURL + "/o", method: .delete))
                #expect(delete.status == 204)
                // The reused handle is neither HEAD nor DELETE any more.
                let get = try await engine.perform(HTTPRequest(url: server.baseURL + "/o"))
                #expect(get.body.count == 5000)
            }
        }
        #expect(seen.withLock { $0 } == ["HEAD", "DELETE", "GET"])
    }

    @Test func sigV4SignsTheRequestAndKeepsTheSecretOutOfSightAndOffTheWire() async throws {
        let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
        let token = "FwoGZXIvYXdzEXAMPLETOKEN"
        let seen = Locked<[String: String]>([:])
        try await withHTTPServer(handler: { req in
            seen.withLock { $0 = req.headers }
            return .text("ok")
        }) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/bucket/key", method: .put, body: [1, 2])
                request.headers = [HTTPHeader(name: "x-amz-content-sha256", value: "UNSIGNED-PAYLOAD")]
                request.awsSigV4 = AWSSigV4(region: "eu-west-3", accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret,
                                            sessionToken: token)
                let response = try await engine.perform(request)
                #expect(response.status == 200)
                for text in [String(describing: request), String(reflecting: request), String(describing: request.awsSigV4!)] {
                    #expect(!text.contains(secret))
                    #expect(!text.contains(token))
                }
                var dumped = ""
                dump(request, to: &dumped)
                #expect(!dumped.contains(secret) && !dumped.contains(token))
                #expect(dumped.contains("AKIDEXAMPLE"))
            }
        }
        let headers = seen.withLock { $0 }
        let authorization = try #require(headers["authorization"])
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"))
        #expect(authorization.contains("/eu-west-3/s3/aws4_request"))
        #expect(authorization.contains("x-amz-content-sha256"))
        #expect(authorization.contains("x-amz-security-token"))
        #expect(headers["x-amz-date"] != nil)
        #expect(headers["x-amz-security-token"] == token)
        #expect(!headers.values.contains { $0.contains(secret) })
    }

    @Test func unusableSigV4CredentialsAreRefusedWithoutQuotingTheSecret() async throws {
        try await HTTPEngine.withEngine { engine in
            var request = HTTPRequest(url: "http://127.0.0.1:9/")
            request.awsSigV4 = AWSSigV4(region: "us-east-1", accessKeyID: "AK", secretAccessKey: "bad\nsecret")
            let error = await catchHTTPError { try await engine.perform(request) }
            #expect(error == .invalidRequest("the SigV4 secret access key is empty or has a control character"))
            request.awsSigV4 = AWSSigV4(region: "us:east", accessKeyID: "AK", secretAccessKey: "s")
            let region = await catchHTTPError { try await engine.perform(request) }
            #expect(region == .invalidRequest("bad SigV4 region \"us:east\""))
        }
    }
}
