import FeedCrawlKit

/// What every decoded feed item must satisfy, whatever the page held.
public enum FeedItemInvariants {
    /// Checks one item: a non-empty id without control characters, clean bounded text fields,
    /// an image URL that is absent or an absolute http(s) URL without spaces or controls.
    public static func check(_ item: FeedItem, page: Int) {
        FuzzInput.check(!item.id.isEmpty, "empty id")
        FuzzInput.check(!FuzzInput.hasControl(item.id), "control character in id \(item.id.debugDescription)")
        FuzzInput.check(item.page == page, "page \(item.page) != \(page)")
        for text in [item.title, item.author ?? "", item.problem ?? ""] {
            FuzzInput.check(!FuzzInput.hasControl(text), "control character in \(text.debugDescription)")
        }
        FuzzInput.check(item.title.count <= 1_001, "title of \(item.title.count) characters")
        if let url = item.imageURL {
            let lower = url.lowercased()
            FuzzInput.check(lower.hasPrefix("http://") || lower.hasPrefix("https://"), "image URL \(url.debugDescription)")
            FuzzInput.check(!url.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F },
                            "space or control in image URL \(url.debugDescription)")
            FuzzInput.check(url.utf8.count <= 8_192, "image URL of \(url.utf8.count) bytes")
        }
    }
}
