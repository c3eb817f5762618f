import FeedCrawlSupport

/// What was learned about a body while it streamed past, without reading it again: its size,
/// SHA-256, first bytes and image structure. A cache sink computes it as a download streams in
/// (`CacheSink.digest`); `manifest --verify` computes the same for a cached file
/// (`CacheStore.digest`).
public struct BodyDigest: Sendable, Equatable {
    /// Bytes kept from the start of the body (1 KiB): enough to tell an HTML page or name a
    /// format; the structure check reads the dimensions itself.
    public static let headLimit = 1024

    /// Lowercase hexadecimal SHA-256 of the whole body as written (64 characters).
    public var sha256: String
    /// The same SHA-256, its 32 bytes (what an object store checks a save against).
    public var sha256Bytes: [UInt8] = []
    /// The first `min(body size, headLimit)` bytes of the body.
    public var head: [UInt8]
    /// Body bytes seen.
    public var size: Int64
    /// Whether the bytes form one complete image, and of what format and size.
    public var structure: ImageStructureVerdict

    /// Creates a digest record.
    public init(sha256: String, head: [UInt8], size: Int64 = 0, structure: ImageStructureVerdict = .unknownFormat) {
        self.sha256 = sha256
        self.head = head
        self.size = size
        self.structure = structure
    }
}

/// Accumulates a `BodyDigest` chunk by chunk (on the engine's loop thread for a download).
struct BodyDigester {
    private var hasher = SHA256()
    private var head: [UInt8] = []
    private var structure = ImageStructureCheck()

    /// Feeds the next chunk of the body.
    mutating func update(_ chunk: UnsafeRawBufferPointer) {
        hasher.update(chunk)
        structure.update(chunk)
        let room = BodyDigest.headLimit - head.count
        guard room > 0 else { return }
        head.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.prefix(room)))
    }

    /// The digest of everything fed so far.
    func finish() -> BodyDigest {
        let raw = hasher.finalize()
        var digest = BodyDigest(sha256: raw.hexString, head: head, size: structure.byteCount, structure: structure.finish())
        digest.sha256Bytes = raw
        return digest
    }
}
