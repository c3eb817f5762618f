import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// What a server sends is read right: an image is stored only when whole, a body cut by a
/// closed connection is retried, content encodings are decoded, a 204 is the server's answer,
/// credentials in a URL are used but never recorded, and a URL a browser would encode is
/// fetched encoded. Real libcurl engine, loopback server.
@Suite("ImagePipeline whole images", .serialized)
struct ImagePipelineWholeImageTests {
    typealias F = ImageFixtures
    static let png = PipelineImages.png("/whole.png")

    @Test func anImageCutByAClosedConnectionIsRetriedUntilWhole() async throws {
        let attempts = Locked<[String: Int]>([:])
        let harness = try PipelineHarness { request in
            let attempt = attempts.withLock { $0[request.path, default: 0] += 1; return $0[request.path]! }
            switch request.path {
            case "/once.png" where attempt == 1:
                // No Content-Length, no chunked coding: HTTP cannot tell the body was cut.
                return ServerResponse(headers: [("Content-Type", "image/png")], body: .closeDelimited(Array(Self.png.prefix(300))))
            case "/always.png":
                return ServerResponse(headers: [("Content-Type", "image/png")], body: .closeDelimited(Array(Self.png.prefix(300))))
            default:
                return ServerResponse(headers: [("Content-Type", "image/png")], body: .closeDelimited(Self.png))
            }
        }
        _ = await harness.pipeline.submit(
            [harness.item("once", [("image", "/once.png")]), harness.item("always", [("image", "/always.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["once"]?.status == .downloaded)
        #expect(items["once"]?.soleImage?.sha256 == SHA256.hex(Self.png))
        #expect(harness.count("/once.png") == 2)
        #expect(items["always"]?.status == .failed)
        let error = items["always"]?.soleImage?.error ?? ""
        #expect(error.hasPrefix("connection closed before the end of the image (truncated PNG"), "\(error)")
        #expect(harness.count("/always.png") == 3)  // the first try and two retries
        #expect(CrawlFixture.cacheFiles(harness.out.path).count == 1)
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
    }

    @Test func anIncompleteFileSentWholeIsRejectedSayingWhatIsMissing() async throws {
        let jpeg = F.jpeg(width: 40, height: 30)
        let harness = try PipelineHarness { request in
            switch request.path {
            case "/cut.jpg": return ServerResponse(headers: [("Content-Type", "image/jpeg")], body: .bytes(Array(jpeg.dropLast(2))))
            case "/cut.png": return ServerResponse(headers: [("Content-Type", "image/png")], body: .chunked(Array(Self.png.dropLast(12)), chunkSize: 100))
            default: return PipelineImages.serve(request.path)
            }
        }
        _ = await harness.pipeline.submit(
            [harness.item("jpg", [("image", "/cut.jpg")]), harness.item("png", [("image", "/cut.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["jpg"]?.status == .rejected)
        #expect(items["jpg"]?.soleImage?.error?.hasPrefix("truncated JPEG") == true, "\(items["jpg"]?.soleImage?.error ?? "")")
        #expect(items["png"]?.status == .rejected)
        #expect(items["png"]?.soleImage?.error?.hasPrefix("truncated PNG") == true, "\(items["png"]?.soleImage?.error ?? "")")
        // Not retried: the server sent all it has.
        #expect(harness.count("/cut.jpg") == 1)
        #expect(harness.count("/cut.png") == 1)
        #expect(CrawlFixture.cacheFiles(harness.out.path).isEmpty)
    }

    @Test func encodedImagesAreDecodedHashedAndStored() async throws {
        let harness = try PipelineHarness { request in
            let bytes = PipelineImages.png(request.path)
            let encoded: (String, [UInt8])
            switch request.path {
            case "/gzip.png": encoded = ("gzip", gzipStored(bytes))
            case "/deflate.png": encoded = ("deflate", ContentEncodings.deflateStored(bytes))
            case "/br.png": encoded = ("br", ContentEncodings.brotliUncompressed(bytes))
            case "/unknown.png": encoded = ("x-squash", bytes)
            default: return PipelineImages.serve(request.path)
            }
            return ServerResponse(headers: [("Content-Type", "image/png"), ("Content-Encoding", encoded.0)], body: .bytes(encoded.1))
        }
        let names = ["gzip", "deflate", "br", "unknown"]
        _ = await harness.pipeline.submit(names.map { harness.item($0, [("image", "/\($0).png")]) }, group: 0)
        let items = try await harness.finish()
        for name in ["gzip", "deflate", "br"] {
            #expect(items[name]?.status == .downloaded, "\(name): \(items[name]?.soleImage?.error ?? "")")
            let image = PipelineImages.png("/\(name).png")
            #expect(items[name]?.soleImage?.sha256 == SHA256.hex(image), "\(name): the decoded image is what is hashed")
            #expect(items[name]?.soleImage?.bytes == Int64(image.count))
        }
        #expect(items["unknown"]?.status == .rejected)
        #expect(items["unknown"]?.soleImage?.error?.contains("unsupported content encoding 'x-squash'") == true,
                "\(items["unknown"]?.soleImage?.error ?? "")")
        #expect(CrawlFixture.cacheFiles(harness.out.path).count == 3)
    }

    @Test func aSmallBodyThatInflatesPastTheCapIsRejected() async throws {
        var settings = PipelineHarness.settings
        settings.maxImageBytes = 64 << 10
        let bomb = ContentEncodings.gzipBomb(matches: 1_000)  // 258 KB of zeros from about 1.6 KB
        #expect(bomb.count < 4096)
        let harness = try PipelineHarness(settings: settings) { _ in
            ServerResponse(headers: [("Content-Type", "image/png"), ("Content-Encoding", "gzip")], body: .bytes(bomb))
        }
        _ = await harness.pipeline.submit([harness.item("bomb", [("image", "/bomb.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["bomb"]?.status == .rejected)
        #expect(items["bomb"]?.soleImage?.error == "body larger than 65536 bytes", "\(items["bomb"]?.soleImage?.error ?? "")")
        #expect(CrawlFixture.cacheFiles(harness.out.path).isEmpty)
        #expect(CrawlFixture.partFiles(harness.out.path).isEmpty)
    }

    @Test func a204IsTheServersAnswerAndFails() async throws {
        let harness = try PipelineHarness { _ in ServerResponse(status: 204) }
        _ = await harness.pipeline.submit([harness.item("empty", [("image", "/empty.png")])], group: 0)
        let items = try await harness.finish()
        #expect(items["empty"]?.status == .failed)
        #expect(items["empty"]?.soleImage?.error == "HTTP 204 (no content)")
        #expect(harness.count("/empty.png") == 1)
    }

    @Test func credentialsInAnImageURLAreUsedButNeverRecorded() async throws {
        let authorizations = Locked<[String]>([])
        let harness = try PipelineHarness { request in
            authorizations.withLock { $0.append(request.headers["authorization"] ?? "") }
            return .text("no", status: 401)  // not retried: the record is what matters
        }
        let url = "http://user:s3cr3t@127.0.0.1:\(harness.server.port)/private.png"
        let item = FeedItem(source: "s", id: "p", page: 1, title: "p", images: [FeedImage(variant: "image", url: url)])
        _ = await harness.pipeline.submit([item], group: 0)
        let items = try await harness.finish()
        // curl sent them (Basic dXNlcjpzM2NyM3Q= is user:s3cr3t) ...
        #expect(authorizations.withLock { $0 } == ["Basic dXNlcjpzM2NyM3Q="])
        // ... and nothing written holds them.
        #expect(items["p"]?.soleImage?.url == "http://127.0.0.1:\(harness.server.port)/private.png")
        let journal = try await harness.journalBytes()
        #expect(!String(decoding: journal, as: UTF8.self).contains("s3cr3t"))
        for event in harness.events {
            if case .retrying(let url, _, _, _, _) = event { #expect(!url.contains("s3cr3t")) }
        }
    }

    @Test func aURLABrowserWouldEncodeIsFetchedEncoded() async throws {
        let harness = try PipelineHarness { request in
            PipelineImages.serve(request.target)
        }
        let raw = "  http://127.0.0.1:\(harness.server.port)/a b/café.png?q=x y  "
        guard case .ok(let url) = FeedText.checkImageURL(raw) else {
            Issue.record("refused \(raw)")
            return
        }
        #expect(url == "http://127.0.0.1:\(harness.server.port)/a%20b/caf%C3%A9.png?q=x%20y")
        let item = FeedItem(source: "s", id: "e", page: 1, title: "e", images: [FeedImage(variant: "image", url: url)])
        _ = await harness.pipeline.submit([item], group: 0)
        let items = try await harness.finish()
        #expect(items["e"]?.status == .downloaded)
        #expect(harness.requests.all.map(\.target) == ["/a%20b/caf%C3%A9.png?q=x%20y"])
        // One that cannot be made valid says why.
        guard case .invalid(let why, _) = FeedText.checkImageURL("http://exa mple.com/x.png") else {
            Issue.record("accepted a space in the host")
            return
        }
        #expect(why.hasPrefix("image URL cannot be made valid (invalid character in the host"), "\(why)")
    }
}
