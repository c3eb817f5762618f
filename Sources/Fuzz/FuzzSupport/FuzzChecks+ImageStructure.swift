import FeedCrawlKit

extension FuzzChecks {
    /// The streaming image structure check: it never traps; its verdict does not depend on how
    /// the body is split (whole, in three pieces at points derived from the input, and byte by
    /// byte for inputs up to 4 KiB); a complete image has at least one pixel each way and stays
    /// complete whatever follows it; the validation built on it accepts only a complete image,
    /// with the size the check read.
    public static func imageStructure(_ bytes: [UInt8]) -> [String] {
        var v = FuzzViolations()
        var whole = ImageStructureCheck()
        whole.update(bytes)
        let verdict = whole.finish()
        let n = bytes.count
        v.check(whole.byteCount == Int64(n), "byteCount \(whole.byteCount) after \(n) bytes")

        // Split points from the input itself, so libFuzzer can steer them.
        if n > 0 {
            let seed = Int(bytes[n / 2]) << 8 | Int(bytes[n - 1])
            let a = seed % (n + 1), b = (seed / 7 + n / 3) % (n + 1)
            let cuts = [0, Swift.min(a, b), Swift.max(a, b), n]
            var split = ImageStructureCheck()
            bytes.withUnsafeBytes { raw in
                for i in 0..<3 { split.update(UnsafeRawBufferPointer(rebasing: raw[cuts[i]..<cuts[i + 1]])) }
            }
            v.check(split.finish() == verdict, "split at \(cuts[1]) and \(cuts[2]): \(split.finish()), whole: \(verdict)")
        }
        if n <= 4096 {
            var single = ImageStructureCheck()
            bytes.withUnsafeBytes { raw in
                for i in 0..<n { single.update(UnsafeRawBufferPointer(rebasing: raw[i..<i + 1])) }
            }
            v.check(single.finish() == verdict, "byte by byte: \(single.finish()), whole: \(verdict)")
        }

        switch verdict {
        case .complete(let info):
            v.check(info.width > 0 && info.height > 0, "complete with \(info.width)x\(info.height) pixels")
            var more = whole
            more.update(Array(bytes.prefix(64)) + [0xFF, 0x00, 0xD8])
            v.check(more.finish() == verdict, "bytes after a complete image changed the verdict to \(more.finish())")
        case .truncated(let format, let reason):
            // Before the whole magic is in, the format is the one the bytes so far begin.
            v.check(whole.format == nil || whole.format == format, "truncated \(format), format \(String(describing: whole.format))")
            v.check(reason.hasPrefix("truncated "), "reason \(reason)")
        case .malformed(let format, let reason):
            v.check(whole.format == format, "malformed \(format), format \(String(describing: whole.format))")
            v.check(reason.hasPrefix("malformed "), "reason \(reason)")
        case .unknownFormat:
            v.check(whole.format == nil, "unknown format, but format \(String(describing: whole.format))")
        }
        let validation = ImageValidation.validate(
            status: 200, contentType: nil, contentLength: Int64(n), bytesReceived: Int64(n),
            head: Array(bytes.prefix(BodyDigest.headLimit)), structure: verdict, bodyDelimited: true,
            maxBytes: 1 << 20)
        if case .accept(let info) = validation {
            v.check(verdict == .complete(info), "accepted \(info), but the structure check says \(verdict)")
        }
        _ = ImageValidation.looksLikeHTML(bytes)
        return v.messages
    }
}
