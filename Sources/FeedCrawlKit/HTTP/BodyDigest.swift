/// What the engine learned about a file-destination body while streaming it to disk
/// (`HTTPRequest.digestBody`): its SHA-256 and its first bytes, so the caller need not read the
/// file back.
public struct BodyDigest: Sendable, Equatable {
    /// Bytes kept from the start of the body for sniffing (64 KiB).
    public static let headLimit = 64 * 1024

    /// Lowercase hexadecimal SHA-256 of the whole body as written (64 characters).
    public var sha256: String
    /// The first `min(body size, headLimit)` bytes of the body.
    public var head: [UInt8]

    /// Creates a digest record.
    public init(sha256: String, head: [UInt8]) {
        self.sha256 = sha256
        self.head = head
    }
}

/// Accumulates a `BodyDigest` chunk by chunk (loop thread only).
struct BodyDigester {
    private var hasher = SHA256()
    private var head: [UInt8] = []

    /// Feeds the next chunk of the body; `expectedLength` (if known) sizes the head buffer once.
    mutating func update(_ chunk: UnsafeRawBufferPointer, expectedLength: Int64?) {
        hasher.update(chunk)
        let room = BodyDigest.headLimit - head.count
        guard room > 0 else { return }
        if head.isEmpty, let expectedLength, expectedLength > 0 {
            head.reserveCapacity(Int(min(expectedLength, Int64(BodyDigest.headLimit))))
        }
        head.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.prefix(room)))
    }

    /// The digest of everything fed so far.
    func finish() -> BodyDigest {
        BodyDigest(sha256: hasher.finalizeHex(), head: head)
    }
}
