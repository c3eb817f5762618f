import FeedCrawlHTTP
import FeedCrawlStorage

/// A download on its way into the archive: the engine writes each chunk into the backend's
/// staged body (`Backend.stage`) and, as the bytes arrive, the digester hashes them, keeps the
/// first bytes and walks the image structure (`BodyDigester`), so nothing is read twice. The
/// pipeline then judges the digest and hands the staged body to `Backend.save`, or discards it.
/// Used by one thread at a time (the engine hands it over when the transfer ends).
final class ImageSink: BodySink, @unchecked Sendable {
    /// The backend's staged body.
    let staged: any StagedFile
    private var digester = BodyDigester()

    init(staged: any StagedFile) {
        self.staged = staged
    }

    /// The size, SHA-256, first bytes and structure of what was written so far.
    var digest: BodyDigest { digester.finish() }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        try staged.write(chunk)
        digester.update(chunk)
    }

    func discard() {
        staged.discard()
    }
}
