import FoundationEssentials

/// An item of a version-1 manifest or journal (feedcrawl 0.1: one image per item, the large
/// launch patch in `details.largePatch*`), read only to carry an old archive over.
///
/// `converted` turns it into a version-2 item: its image becomes the variant it was fetched as
/// (`Variants`), its `details.largePatch*` fields the `large` variant, and every file fact stays
/// as the old manifest recorded it, so nothing fresh is fetched again.
public struct ManifestItemV1: Decodable, Sendable {
    var source: String
    var id: String
    var page: Int
    var title: String?
    var imageURL: String?
    var status: ItemStatus
    var file: String?
    var bytes: Int64?
    var sha256: String?
    var contentType: String?
    var width: Int?
    var height: Int?
    var error: String?
    var author: String?
    var etag: String?
    var lastModified: String?
    var fetchedAt: Date?
    var lastSeen: Date?
    var details: Details?

    struct Details: Decodable, Sendable {
        var rocketName: String?
        var rocketType: String?
        var site: String?
        var largePatchURL: String?
        var largePatchFile: String?
        var largePatchStatus: ItemStatus?
        var largePatchSHA256: String?
        var largePatchBytes: Int64?
        var largePatchETag: String?
        var largePatchLastModified: String?
        var largePatchFetchedAt: Date?
        var largePatchError: String?
        var error: String?
    }

    /// The variant a version-1 item's image was fetched as, by source name: what the version-1
    /// run record says (`<source>.patchSize` for launches sources; an `<source>.idField` option marks
    /// an array source), else by the source's default name (`launches` → `small`, `array` →
    /// `image`), else `preview` (Pixabay's default).
    public struct Variants: Sendable {
        var options: [String: String]

        /// Variants from a version-1 run record's `options`; default none (names decide).
        public init(options: [String: String] = [:]) {
            self.options = options
        }

        func primary(source: String) -> String {
            if let size = options["\(source).patchSize"] { return size.lowercased() == "large" ? "large" : "small" }
            if options["\(source).idField"] != nil { return "image" }
            switch source {
            case "launches": return "small"
            case "array": return "image"
            default: return "preview"
            }
        }
    }

    /// The version-2 item.
    func converted(_ variants: Variants) -> ManifestItem {
        var item = ManifestItem(
            source: source, id: id, page: page, title: title ?? "", author: author, lastSeen: lastSeen)
        if let imageURL {
            item.images.append(ImageRecord(
                variant: variants.primary(source: source), url: imageURL, status: status == .noImage ? .cancelled : status,
                file: file, bytes: bytes, sha256: sha256, contentType: contentType, width: width, height: height,
                etag: etag, lastModified: lastModified, fetchedAt: fetchedAt, error: error))
        } else if status == .rejected {
            item.error = error ?? "rejected"
        }
        if let details {
            if details.rocketName != nil || details.rocketType != nil || details.site != nil || details.error != nil {
                item.details = LaunchDetails(
                    rocketName: details.rocketName, rocketType: details.rocketType, site: details.site,
                    error: details.error)
            }
            if let url = details.largePatchURL, item.image("large") == nil {
                item.images.append(ImageRecord(
                    variant: "large", url: url, status: details.largePatchStatus ?? .cancelled,
                    file: details.largePatchFile, bytes: details.largePatchBytes, sha256: details.largePatchSHA256,
                    etag: details.largePatchETag, lastModified: details.largePatchLastModified,
                    fetchedAt: details.largePatchFetchedAt,
                    error: details.largePatchError
                        ?? (details.largePatchStatus == nil ? "no outcome before the run ended" : nil)))
            }
        }
        return item
    }
}
