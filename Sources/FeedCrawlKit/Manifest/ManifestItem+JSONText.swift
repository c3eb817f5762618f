extension ManifestItem {
    /// Stored properties `write(to:)` writes; a test compares this with the type's own
    /// properties, so a new property cannot be forgotten here.
    static let jsonTextPropertyCount = 19

    /// Writes the item as `ManifestCoding`'s encoders do (keys sorted, nil values left out except
    /// `imageURL`), without building a `JSONEncoder` value tree.
    func write(to json: inout JSONText) {
        json.beginObject()
        if let author { json.key("author"); json.string(author) }
        if let bytes { json.key("bytes"); json.int(bytes) }
        if let contentType { json.key("contentType"); json.string(contentType) }
        if let details { json.key("details"); details.write(to: &json) }
        if let error { json.key("error"); json.string(error) }
        if let etag { json.key("etag"); json.string(etag) }
        if let fetchedAt { json.key("fetchedAt"); json.date(fetchedAt) }
        if let file { json.key("file"); json.string(file) }
        if let height { json.key("height"); json.int(height) }
        json.key("id"); json.string(id)
        json.key("imageURL")
        if let imageURL { json.string(imageURL) } else { json.null() }
        if let lastModified { json.key("lastModified"); json.string(lastModified) }
        if let lastSeen { json.key("lastSeen"); json.date(lastSeen) }
        json.key("page"); json.int(page)
        if let sha256 { json.key("sha256"); json.string(sha256) }
        json.key("source"); json.string(source)
        json.key("status"); json.string(status.rawValue)
        json.key("title"); json.string(title)
        if let width { json.key("width"); json.int(width) }
        json.endObject()
    }

    /// The item as one compact JSON line (with the final newline), as the journal stores it.
    func journalLine(into json: inout JSONText) {
        write(to: &json)
        json.bytes.append(0x0A)
    }
}

extension LaunchDetails {
    /// Stored properties `write(to:)` writes (checked by a test, as for `ManifestItem`).
    static let jsonTextPropertyCount = 13

    /// Writes the details as `ManifestCoding`'s encoders do (keys sorted, nil values left out).
    func write(to json: inout JSONText) {
        json.beginObject()
        if let error { json.key("error"); json.string(error) }
        if let largePatchBytes { json.key("largePatchBytes"); json.int(largePatchBytes) }
        if let largePatchETag { json.key("largePatchETag"); json.string(largePatchETag) }
        if let largePatchError { json.key("largePatchError"); json.string(largePatchError) }
        if let largePatchFetchedAt { json.key("largePatchFetchedAt"); json.date(largePatchFetchedAt) }
        if let largePatchFile { json.key("largePatchFile"); json.string(largePatchFile) }
        if let largePatchLastModified { json.key("largePatchLastModified"); json.string(largePatchLastModified) }
        if let largePatchSHA256 { json.key("largePatchSHA256"); json.string(largePatchSHA256) }
        if let largePatchStatus { json.key("largePatchStatus"); json.string(largePatchStatus.rawValue) }
        if let largePatchURL { json.key("largePatchURL"); json.string(largePatchURL) }
        if let rocketName { json.key("rocketName"); json.string(rocketName) }
        if let rocketType { json.key("rocketType"); json.string(rocketType) }
        if let site { json.key("site"); json.string(site) }
        json.endObject()
    }
}
