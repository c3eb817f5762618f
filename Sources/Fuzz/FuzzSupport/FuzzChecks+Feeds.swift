import FeedCrawlKit

/// What each fuzz target checks, as functions the regression tests can call too. Each returns
/// the invariants the input violated (empty when fine); a trap inside is a crash either way.
public enum FuzzChecks {
    /// Every decoded feed item: a non-empty id without control characters, clean bounded text
    /// fields, an image URL that is absent or an absolute http(s) URL without spaces or controls.
    static func check(_ item: FeedItem, page: Int, into v: inout FuzzViolations) {
        v.check(!item.id.isEmpty, "empty id")
        v.check(!FuzzInput.hasControl(item.id), "control character in id \(item.id.debugDescription)")
        v.check(item.page == page, "page \(item.page) != \(page)")
        for text in [item.title, item.author ?? "", item.problem ?? ""] {
            v.check(!FuzzInput.hasControl(text), "control character in \(text.debugDescription)")
        }
        v.check(item.title.count <= 1_001, "title of \(item.title.count) characters")
        for image in item.images where image.problem == nil {
            let url = image.url
            v.check(FuzzInput.hasHTTPScheme(url), "image URL \(url.debugDescription)")
            v.check(!url.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F },
                    "space or control in image URL \(url.debugDescription)")
            v.check(url.utf8.count <= 8_192, "image URL of \(url.utf8.count) bytes")
        }
    }

    /// The Pixabay page decoder and the checks that run on a page response before it.
    public static func pixabayPage(_ bytes: [UInt8]) -> [String] {
        var v = FuzzViolations()
        let redactor = SecretRedactor(secrets: ["secret-key"])
        _ = FeedResponseCheck.check(status: 200, contentType: nil, body: bytes, redactor: redactor)
        if case .other(let message) = PixabayErrorKind.classify(status: 400, body: bytes, redactor: redactor) {
            v.check(!message.contains("secret-key"), "secret in error message")
            v.check(!FuzzInput.hasControl(message), "control character in error message")
        }
        for variants in [[PixabayVariant.preview], PixabayVariant.allCases] {
            guard let page = try? PixabayPage.decode(bytes, page: 3, variants: variants) else { continue }
            v.check(page.totalHits >= 0 && page.total >= 0, "negative totals")
            v.check(page.items.count <= bytes.count / 2, "\(page.items.count) hits from \(bytes.count) bytes")
            for item in page.items {
                check(item, page: 3, into: &v)
                // Each variant from its own field, in the order asked, none twice.
                let asked = variants.map(\.rawValue)
                v.check(item.images.map(\.variant) == asked.filter { name in item.images.contains { $0.variant == name } },
                        "images out of the order asked")
                if let pageURL = item.pageURL { v.check(FuzzInput.hasHTTPScheme(pageURL), "pageURL \(pageURL.debugDescription)") }
            }
            let last = PixabayPaging(requestedPages: 5, perPage: 100).lastPage(totalHits: page.totalHits)
            v.check((0...5).contains(last), "last page \(last)")
        }
        return v.messages
    }

    /// The GraphQL launches decoders (list page and launch detail) and the cursor pager.
    public static func launchesPage(_ bytes: [UInt8]) -> [String] {
        var v = FuzzViolations()
        // Both variants (asked as aliases) too: each item's images are among those asked for.
        for variants in [["small", "large"], ["large"]] {
            guard let page = try? LaunchesPage.decode(bytes, page: 2, variants: variants) else { continue }
            for item in page.items {
                check(item, page: 2, into: &v)
                v.check(item.images.allSatisfy { variants.contains($0.variant) }, "an image of a variant not asked for")
                v.check(Set(item.images.map(\.variant)).count == item.images.count, "a variant twice")
            }
        }
        if let page = try? LaunchesPage.decode(bytes, page: 2) {
            v.check(page.items.count <= bytes.count / 2, "\(page.items.count) items from \(bytes.count) bytes")
            for item in page.items { check(item, page: 2, into: &v) }
            if let cursor = page.cursor { v.check(!cursor.isEmpty, "empty cursor kept") }
            var pager = LaunchPager(pageLimit: 3)
            for _ in 0..<4 {
                let step = pager.accept(page)
                v.check(pager.pagesAccepted <= 3, "pager accepted \(pager.pagesAccepted) pages")
                if case .next = step { continue }
                break
            }
        }
        if let detail = try? LaunchDetailResponse.decode(bytes) {
            v.check(!detail.id.isEmpty, "a launch detail without an id")
        }
        return v.messages
    }

    /// The bare-array page decoder. The input's first line (up to 200 bytes) names the fields
    /// (`id image title author`, dotted paths allowed); the rest is the page body.
    public static func arrayPage(_ bytes: [UInt8]) -> [String] {
        var v = FuzzViolations()
        var fields = ["id", "image_url", "name", "author"]
        var body = bytes[...]
        if let newline = bytes.firstIndex(of: 0x0A), newline <= 200 {
            let names = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ").map(String.init)
            for (index, name) in names.prefix(4).enumerated() { fields[index] = name }
            body = bytes[(newline + 1)...]
        }
        let items = try? ArrayPage.decode(
            Array(body), page: 1, idField: fields[0], imageField: fields[1], titleField: fields[2],
            authorField: fields[3])
        for item in items ?? [] { check(item, page: 1, into: &v) }
        _ = ArrayPage.isLastPage(itemCount: items?.count ?? 0, perPage: 25)
        return v.messages
    }
}
