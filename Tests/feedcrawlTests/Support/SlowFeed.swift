import DemoFeed
import FeedCrawlKit
import Foundation
import FeedCrawlSupport

/// A DemoFeed in the test process whose images are one small valid PNG, sent in full or
/// dripped slowly (about 0.6 s each) while `slow` is on. Counts image requests.
final class SlowFeed: @unchecked Sendable {
    static let image: [UInt8] = {
        func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            be32(data.count) + Array(type.utf8) + data + be32(Int(CRC32.checksum(Array(type.utf8) + data)))
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // A whole 12 x 12 RGBA PNG (its IDAT a zlib stream of one empty stored block), padded
        // with a text chunk: a stored image must be complete.
        return signature + chunk("IHDR", be32(12) + be32(12) + [8, 6, 0, 0, 0])
            + chunk("tEXt", [UInt8](repeating: 0x61, count: 1100))
            + chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }()
    static var imageSHA256: String { SHA256.hex(image) }

    private let lock = NSLock()
    private var isSlow: Bool
    private var imageRequests = 0
    private(set) var server: DemoFeedServer!

    init(slow: Bool = true, bytesPerSecond: Int = 2_000) throws {
        isSlow = slow
        var options = DemoFeedOptions()
        options.override = { [unowned self] request in
            guard request.path.hasPrefix("/img/") else { return nil }
            lock.lock()
            imageRequests += 1
            let slow = isSlow
            lock.unlock()
            let headers = [("Content-Type", "image/png")]
            return ServerResponse(
                headers: headers, body: slow ? .drip(Self.image, bytesPerSecond: bytesPerSecond) : .bytes(Self.image))
        }
        server = try DemoFeedServer(options: options)
    }

    var slow: Bool {
        get { lock.withLock { isSlow } }
        set { lock.withLock { isSlow = newValue } }
    }

    var images: Int { lock.withLock { imageRequests } }

    /// Arguments that crawl both sources of this feed into `out`, with the default image
    /// variants or, with `allVariants`, two of each source (Pixabay preview and webformat,
    /// both patch sizes).
    func arguments(out: String, pages: Int = 2, perPage: Int = 20, allVariants: Bool = false) -> [String] {
        ["--pixabay-url", server.pixabayURL, "--launches-url", server.launchesURL,
         "--pages", String(pages), "--per-page", String(perPage), "--out", out]
            + (allVariants ? Self.twoVariantsEach : [])
    }

    /// Two image variants of each source.
    static let twoVariantsEach = ["--pixabay-images", "preview,webformat", "--launch-images", "small,large"]

    var environment: [String: String] { ["PIXABAY_KEY": server.apiKey] }

    func stop() { server.stop() }
}
