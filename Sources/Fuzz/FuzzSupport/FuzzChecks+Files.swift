import FoundationEssentials
import FeedCrawlKit

extension FuzzChecks {
    /// What feedcrawl reads back from disk: `manifest.json` and `manifest.journal` (which a crash,
    /// a full disk or a person may have mangled), kept feed pages (`OUT/pages/…`, recordings) and
    /// the configuration file. A manifest that decodes must re-encode stably; a `file` value the
    /// cache layout accepts can never point outside the cache; a kept page that decodes must
    /// survive its own encoding.
    public static func manifest(_ bytes: [UInt8]) -> [String] {
        var v = FuzzViolations()
        // The strict scanner tried first must agree with JSONDecoder on every page it accepts.
        if let scanned = FeedExchange.scannerDecode(bytes) {
            v.check(scanned == (try? FeedExchange.foundationDecode(bytes)), "the exchange scanner disagrees with JSONDecoder")
        }
        if let exchange = try? FeedExchange.decode(bytes) {
            _ = exchange.response
            let again = (try? exchange.encoded()).flatMap { try? FeedExchange.decode($0) }
            v.check(again == exchange, "a kept page does not survive its own encoding")
        }
        _ = try? ConfigFile.parse(bytes, path: "feedcrawl.json")
        let journal = ItemJSON.journalLines(bytes)
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).count
        v.check(journal.items.count + journal.skipped <= lines, "more journal entries than lines")
        // The strict scanner ItemJSON tries first must agree with JSONDecoder on every line.
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let text = Array(line)
            guard let scanned = ItemJSON.scannerDecode(text) else { continue }
            let reference = try? ItemJSON.foundationDecode(text)
            v.check(scanned == reference, "the item scanner disagrees with JSONDecoder")
            // What the scanner accepts (whole-second dates of 1583...9999) the writer writes back
            // exactly, and the scanner reads again.
            v.check(ItemJSON.scannerDecode(ItemJSON.line(scanned)) == scanned, "an item does not survive ItemJSON.line")
        }
        let decoded = try? ManifestStore.decode(bytes)
        var items = decoded?.items ?? []
        items += journal.items
        for item in items {
            for image in item.images {
                guard let file = image.file, CacheLayout.isValidRelativePath(file) else { continue }
                v.check(!file.hasPrefix("/") && !file.contains(".."), "cache path \(file.debugDescription) accepted")
                v.check(file.hasPrefix(CacheLayout.cacheDirectoryName + "/"), "cache path \(file.debugDescription) outside cache/")
            }
        }
        if let decoded {
            contactSheet(decoded, into: &v)
            for format in [InspectionFormat.table, .csv, .json] { _ = ItemListing.render(decoded.items, format: format) }
            // What is read back is written the same way again.
            let first = ManifestStore.encode(decoded)
            if let again = try? ManifestStore.decode(first) {
                v.check(ManifestStore.encode(again) == first, "manifest encoding is not stable")
            } else {
                v.check(false, "a decoded manifest does not read back")
            }
        }
        return v.messages
    }

    /// The contact sheet of a manifest links nothing from the feed but cache files (safe relative
    /// paths) and http(s) pages: no `javascript:`, no `file:`, no path out of OUT.
    static func contactSheet(_ manifest: Manifest, into v: inout FuzzViolations) {
        let html = ContactSheet.html(manifest)
        for attribute in [" href=\"", " src=\""] {
            for piece in html.split(separator: attribute, omittingEmptySubsequences: false).dropFirst() {
                let value = String(piece.prefix { $0 != "\"" })
                // The sheet's own page links carry the filter's fragment (`index-….html#problems`).
                let page = value.hasSuffix("#problems") ? String(value.dropLast("#problems".count)) : value
                let ok = value == "manifest.json" || value.hasPrefix("#") || HTMLText.isSafeRelativePath(page)
                    || FuzzInput.hasHTTPScheme(value)
                v.check(ok, "contact sheet links \(value.prefix(80).debugDescription)")
                v.check(!value.contains("<") && !value.contains(">"), "markup inside an attribute")
            }
        }
        v.check(!html.contains("<script"), "a script on the contact sheet")
    }
}
