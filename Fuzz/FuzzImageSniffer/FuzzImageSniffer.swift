import FeedCrawlKit
import FuzzSupport

/// libFuzzer entry point for the image-header sniffer and the image validation built on it:
/// neither may trap, and what `sniff` reports must agree with the magic bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageSniffer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = FuzzInput.bytes(data, size)
    let format = ImageSniffer.detectFormat(bytes)
    if let info = ImageSniffer.sniff(bytes) {
        FuzzInput.check(info.format == format, "sniff says \(info.format), detectFormat \(String(describing: format))")
        FuzzInput.check(info.width > 0 && info.height > 0, "non-positive dimensions \(info.width)x\(info.height)")
    }
    let verdict = ImageValidation.validate(
        status: 200, contentType: nil, contentLength: Int64(bytes.count), bytesReceived: Int64(bytes.count),
        head: bytes, maxBytes: 1 << 20)
    if case .accept(let info) = verdict {
        FuzzInput.check(ImageSniffer.sniff(bytes) == info, "accepted without a sniffable header")
    }
    _ = ImageValidation.looksLikeHTML(bytes)
    return 0
}

#if !FUZZING
@main
enum Replay {
    static func main() { FuzzReplay.run(fuzzImageSniffer) }
}
#endif
