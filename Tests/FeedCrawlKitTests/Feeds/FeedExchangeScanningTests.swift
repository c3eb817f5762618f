import FoundationEssentials
import Testing
@testable import FeedCrawlKit

/// Kept pages (`OUT/pages`, recordings) are read by the strict scanner first; where it accepts
/// a document it must read exactly what `JSONDecoder` reads, and it must hand everything
/// unusual to `JSONDecoder`.
@Suite("FeedExchange scanner")
struct FeedExchangeScanningTests {
    static func randomText(_ random: inout TestRandom, _ count: Int) -> String {
        let pieces = ["a", "Z", "9", " ", "\"", "\\", "/", "\n", "\t", "é", "✓", "😀", "\u{1}", "\u{7f}", "{", "}", ","]
        return (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func randomExchange(_ seed: UInt64) -> FeedExchange {
        var random = TestRandom(seed: seed)
        let request = FeedRequestIdentity(
            method: Bool.random(using: &random) ? "GET" : "POST",
            url: "http://127.0.0.1:8080/api/?q=" + randomText(&random, 12),
            body: Bool.random(using: &random) ? randomText(&random, 30) : nil)
        var exchange = FeedExchange(
            source: "s" + randomText(&random, 4), request: request, error: "",
            fetchedAt: Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random)) + Double.random(in: 0..<1, using: &random)))
        exchange.error = nil
        switch Int.random(in: 0..<3, using: &random) {
        case 0: exchange.body = randomText(&random, Int.random(in: 0...400, using: &random))
        case 1: exchange.bodyBase64 = Data((0..<20).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
        default: exchange.error = randomText(&random, 20)
        }
        if exchange.error == nil { exchange.status = [200, 304, 429, 500].randomElement(using: &random) }
        exchange.headers = (0..<Int.random(in: 0...4, using: &random)).map { _ in
            FeedExchange.Header(name: "x-ratelimit-remaining", value: randomText(&random, 5))
        }
        return exchange
    }

    @Test(arguments: 0..<200)
    func whatItWritesTheScannerReadsAsJSONDecoderDoes(seed: Int) throws {
        let exchange = Self.randomExchange(UInt64(seed))
        let bytes = try exchange.encoded()
        let scanned = try #require(FeedExchange.scannerDecode(bytes))
        #expect(scanned == exchange)
        #expect(scanned == (try FeedExchange.foundationDecode(bytes)))
        #expect(try FeedExchange.decode(bytes) == exchange)
    }

    /// Documents written by hand or by another tool: the scanner reads them as `JSONDecoder`
    /// does, or leaves them to it.
    @Test(arguments: [
        // accepted: whitespace, other key order, unknown members, nulls, escapes
        (#" { "version" : 1, "source":"p", "request":{"method":"GET","url":"http://h/","body":null,"x":[1,{"y":2}]}, "fetchedAt": 1.5e9, "headers":[{"value":"1","name":"etag","z":null}], "status":null, "body":"\u00e9\"\/", "extra":true } "#, true),
        (#"{"version":1,"source":"p","request":{"method":"GET","url":"u"},"fetchedAt":0,"headers":[]}"#, true),
        // left to JSONDecoder: a duplicate member, an integer written as a fraction, a number too large
        (#"{"version":1,"version":1,"source":"p","request":{"method":"GET","url":"u"},"fetchedAt":0,"headers":[]}"#, false),
        (#"{"version":1,"source":"p","request":{"method":"GET","url":"u"},"fetchedAt":0,"headers":[],"status":200.0}"#, false),
        (#"{"version":1,"source":"p","request":{"method":"GET","url":"u"},"fetchedAt":1e999,"headers":[]}"#, false),
        // not an exchange at all: both refuse
        (#"{"version":1,"source":"p","request":{"method":"GET","url":"u"},"fetchedAt":0}"#, false),
        (#"{"version":1,"source":"p","request":{"url":"u"},"fetchedAt":0,"headers":[]}"#, false),
        (#"[]"#, false),
        (#"{"version":1,"source":"p","request":{"method":"GET","url":"u"},"fetchedAt":0,"headers":[]} x"#, false),
    ])
    func handWrittenDocuments(text: String, scannerAccepts: Bool) {
        let bytes = Array(text.utf8)
        let scanned = FeedExchange.scannerDecode(bytes)
        #expect((scanned != nil) == scannerAccepts)
        if let scanned { #expect(scanned == (try? FeedExchange.foundationDecode(bytes))) }
    }
}
