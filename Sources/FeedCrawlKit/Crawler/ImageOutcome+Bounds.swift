extension ImageOutcome {
    /// Longest `error` kept, in characters.
    static let maxErrorCharacters = 400
    /// Longest `contentType` kept, in characters.
    static let maxContentTypeCharacters = 128
    /// Longest `etag` or `lastModified` kept, in UTF-8 bytes; longer validators are dropped
    /// (a clipped one would be wrong), which only costs a full request next time.
    static let maxValidatorBytes = 256

    /// The outcome with its server- or system-supplied text bounded, so one hostile header
    /// cannot bloat the manifest (and `CrawlStorage`'s per-item estimate holds).
    func bounded() -> ImageOutcome {
        var copy = self
        if let error, error.count > Self.maxErrorCharacters {
            copy.error = String(error.prefix(Self.maxErrorCharacters)) + "…"
        }
        if let contentType, contentType.count > Self.maxContentTypeCharacters {
            copy.contentType = String(contentType.prefix(Self.maxContentTypeCharacters))
        }
        if let etag, etag.utf8.count > Self.maxValidatorBytes { copy.etag = nil }
        if let lastModified, lastModified.utf8.count > Self.maxValidatorBytes { copy.lastModified = nil }
        return copy
    }
}
