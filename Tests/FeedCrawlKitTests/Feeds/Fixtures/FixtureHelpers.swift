@testable import FeedCrawlKit

extension String {
    /// The UTF-8 bytes, as handed to decoders by the HTTP layer.
    var bytes: [UInt8] { Array(utf8) }
}

extension FeedItem {
    /// The URL of the item's `variant` image, nil when the item does not offer it.
    func url(_ variant: String) -> String? {
        images.first { $0.variant == variant }?.url
    }

    /// The item's `variant` image, nil when it does not offer it.
    func image(_ variant: String) -> FeedImage? {
        images.first { $0.variant == variant }
    }
}
