import DemoFeed
import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

@Suite("HTTPEngine content encoding and URLs")
struct HTTPEngineEncodingTests {
    static let json = Array(#"{"hits":[{"id":1,"previewURL":"http://x/1.jpg"}],"total":1}"#.utf8)

    @Test func gzipBodyIsDecodedWhenAccepted() async throws {
        let gzipped = gzipStored(Self.json)
        try await withHTTPServer(handler: { req in
            guard req.header("accept-encoding")?.contains("gzip") == true else { return .json(Self.json) }
            return ServerResponse(headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                                  body: .bytes(gzipped))
        }) { server in
            try await HTTPEngine.withEngine { engine in
                var request = HTTPRequest(url: server.baseURL + "/api/")
                request.acceptEncoding = true
                let r = try await engine.perform(request)
                #expect(r.body == Self.json)
                #expect(r.bytesReceived == Int64(Self.json.count))
                // The cap counts decoded bytes.
                request.maxBytes = Int64(Self.json.count - 1)
                await expectHTTPError(.bodyTooLarge(limit: request.maxBytes)) { try await engine.perform(request) }
            }
        }
    }

    @Test func nonASCIIAndEncodedPathsReachTheServer() async throws {
        try await withHTTPServer(handler: { req in .text(req.path) }) { server in
            try await HTTPEngine.withEngine { engine in
                let encoded = try await engine.perform(HTTPRequest(url: server.baseURL + "/img/caf%C3%A9.jpg?x=1"))
                #expect(String(decoding: encoded.body, as: UTF8.self) == "/img/café.jpg")
                let raw = try await engine.perform(HTTPRequest(url: server.baseURL + "/img/café.jpg"))
                #expect(raw.status == 200)
            }
        }
    }
}

/// A gzip member holding `data` in one stored (uncompressed) deflate block.
func gzipStored(_ data: [UInt8]) -> [UInt8] {
    precondition(data.count < 65_536)
    var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
    let n = UInt16(data.count)
    out += [1, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)]
    out += data
    let crc = crc32(data)
    let size = UInt32(data.count)
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: size >> UInt32(shift))) }
    return out
}

func crc32(_ data: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
