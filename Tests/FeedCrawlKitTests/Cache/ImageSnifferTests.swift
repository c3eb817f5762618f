import Testing
@testable import FeedCrawlKit

@Suite("ImageSniffer")
struct ImageSnifferTests {
    typealias F = ImageFixtures

    @Test func png() {
        #expect(ImageSniffer.sniff(F.png(width: 640, height: 427)) == ImageInfo(format: .png, width: 640, height: 427))
        #expect(ImageSniffer.sniff(F.png(width: 0x7FFF_FFFF, height: 1))?.width == 0x7FFF_FFFF)
        #expect(ImageSniffer.sniff(F.png(width: 150, height: 99, chunkType: "IDAT")) == nil)
        #expect(ImageSniffer.sniff(F.png(width: 0, height: 10)) == nil)
        #expect(ImageSniffer.sniff(F.png(width: 0x8000_0000, height: 10)) == nil)
    }

    @Test func gif() {
        #expect(ImageSniffer.sniff(F.gif(width: 300, height: 0x1234)) == ImageInfo(format: .gif, width: 300, height: 0x1234))
        #expect(ImageSniffer.sniff(F.gif(width: 1, height: 1, version: "87a"))?.format == .gif)
        #expect(ImageSniffer.sniff(F.gif(width: 1, height: 1, version: "90a")) == nil)
    }

    @Test func webp() {
        #expect(ImageSniffer.sniff(F.webpLossy(width: 550, height: 368)) == ImageInfo(format: .webp, width: 550, height: 368))
        #expect(ImageSniffer.sniff(F.webpLossy(width: 550, height: 368, keyFrame: false)) == nil)
        #expect(ImageSniffer.sniff(F.webpLossless(width: 16384, height: 1)) == ImageInfo(format: .webp, width: 16384, height: 1))
        #expect(ImageSniffer.sniff(F.webpLossless(width: 386, height: 395)) == ImageInfo(format: .webp, width: 386, height: 395))
        #expect(ImageSniffer.sniff(F.webpExtended(width: 16_777_216, height: 3)) == ImageInfo(format: .webp, width: 16_777_216, height: 3))
        var badSignature = F.webpLossless(width: 5, height: 5)
        badSignature[20] = 0x2E
        #expect(ImageSniffer.sniff(badSignature) == nil)
        #expect(ImageSniffer.sniff(F.riff("ALPH", [UInt8](repeating: 0, count: 20))) == nil)
    }

    @Test func jpegBaselineProgressiveAndExif() {
        #expect(ImageSniffer.sniff(F.jpeg(width: 640, height: 480)) == ImageInfo(format: .jpeg, width: 640, height: 480))
        #expect(ImageSniffer.sniff(F.jpeg(width: 150, height: 100, sof: 0xC2)) == ImageInfo(format: .jpeg, width: 150, height: 100))
        #expect(ImageSniffer.sniff(F.jpeg(width: 65535, height: 7, sof: 0xCF))?.width == 65535)
        let exif = F.jpeg(width: 1280, height: 853, exifBytes: 30_000, fillBytes: 3)
        #expect(ImageSniffer.sniff(exif) == ImageInfo(format: .jpeg, width: 1280, height: 853))
    }

    @Test func jpegSkipsMarkersThatAreNotFrameHeaders() {
        // Only a DAC (CC) and a JPG (C8) segment, then SOS: no frame header, so no size.
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += F.segment(0xCC, [0, 1, 2, 3, 4, 5, 6])
        bytes += F.segment(0xC8, [0, 1, 2, 3, 4, 5, 6])
        bytes += F.segment(0xDA, [1, 2, 3])
        bytes += F.segment(0xC0, [8] + F.be16(10) + F.be16(20) + [1, 1, 0x11, 0])
        #expect(ImageSniffer.sniff(bytes) == nil)
        // Restart and TEM markers carry no length and are skipped.
        let ok: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD0, 0xFF, 0x01] + F.segment(0xC1, [8] + F.be16(3) + F.be16(4) + [1, 1, 0x11, 0])
        #expect(ImageSniffer.sniff(ok) == ImageInfo(format: .jpeg, width: 4, height: 3))
    }

    @Test func jpegMalformedSegments() {
        let sof = F.segment(0xC0, [8] + F.be16(10) + F.be16(20) + [1, 1, 0x11, 0])
        // Length 0 and 1 are impossible (the length counts its own two bytes).
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00] + sof) == nil)
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01] + sof) == nil)
        // A segment claiming to run past the end.
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xF0, 0x00]) == nil)
        // Junk where a marker should be.
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x41] + sof) == nil)
        // A frame header too short to hold the dimensions.
        #expect(ImageSniffer.sniff([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x04, 8, 0]) == nil)
        // All fill bytes.
        #expect(ImageSniffer.sniff([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 1000)) == nil)
        // Zero height (DNL-defined) is reported as unusable.
        #expect(ImageSniffer.sniff(F.jpeg(width: 10, height: 0)) == nil)
    }

    /// Each fixture (10 x 20 pixels) and the number of leading bytes its size needs.
    static let truncationCases: [String: (bytes: [UInt8], needed: Int)] = {
        let jpeg = F.jpeg(width: 10, height: 20, exifBytes: 100)
        let sof = (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }!
        return [
            "png": (F.png(width: 10, height: 20), 24),
            "gif": (F.gif(width: 10, height: 20), 10),
            "vp8": (F.webpLossy(width: 10, height: 20), 30),
            "vp8l": (F.webpLossless(width: 10, height: 20), 25),
            "vp8x": (F.webpExtended(width: 10, height: 20), 30),
            "jpeg": (jpeg, sof + 9),  // FF C0, length, precision, height, width
        ]
    }()

    @Test(arguments: ["png", "gif", "vp8", "vp8l", "vp8x", "jpeg"])
    func everyTruncationIsNilNeverACrash(name: String) throws {
        let (image, needed) = try #require(Self.truncationCases[name])
        let format = try #require(ImageSniffer.detectFormat(image))
        let expected = ImageInfo(format: format, width: 10, height: 20)
        #expect(ImageSniffer.sniff(image) == expected)
        #expect(ImageSniffer.sniff(Array(image[0..<needed])) == expected)
        for length in 0..<needed {
            #expect(ImageSniffer.sniff(Array(image[0..<length])) == nil, "prefix \(length)")
        }
    }

    @Test func garbageNeverCrashes() {
        for seed in 1...300 {
            var bytes = F.garbage(count: seed * 7 % 400, seed: UInt64(seed))
            // Give some of them a real magic number so the format parsers run on noise.
            switch seed % 5 {
            case 0: bytes = [0xFF, 0xD8, 0xFF] + bytes
            case 1: bytes = F.png(width: 1, height: 1).prefix(8) + bytes
            case 2: bytes = Array("RIFF\0\0\0\0WEBPVP8".utf8) + bytes
            case 3: bytes = Array("GIF89a".utf8) + bytes
            default: break
            }
            if let info = ImageSniffer.sniff(bytes) {
                #expect(info.width > 0 && info.height > 0)
            }
        }
    }

    @Test func detectFormatNeedsOnlyMagicBytes() {
        #expect(ImageSniffer.detectFormat([0xFF, 0xD8, 0xFF]) == .jpeg)
        #expect(ImageSniffer.detectFormat([0xFF, 0xD8]) == nil)
        #expect(ImageSniffer.detectFormat(Array(F.png(width: 1, height: 1).prefix(8))) == .png)
        #expect(ImageSniffer.detectFormat(Array("GIF87a".utf8)) == .gif)
        #expect(ImageSniffer.detectFormat(Array("RIFF\u{1}\u{2}\u{3}\u{4}WEBP".utf8)) == .webp)
        #expect(ImageSniffer.detectFormat(Array("RIFF\u{1}\u{2}\u{3}\u{4}WAVE".utf8)) == nil)
        #expect(ImageSniffer.detectFormat(Array("<!DOCTYPE html>".utf8)) == nil)
        #expect(ImageSniffer.detectFormat([]) == nil)
    }

    @Test func formatExtensions() {
        #expect(ImageFormat.allCases.map(\.fileExtension) == ["jpg", "png", "gif", "webp"])
        #expect(ImageFormat(fileExtension: ".JPEG") == .jpeg)
        #expect(ImageFormat(fileExtension: "jpg") == .jpeg)
        #expect(ImageFormat(fileExtension: "svg") == nil)
        #expect(ImageFormat.webp.mimeType == "image/webp")
    }
}
