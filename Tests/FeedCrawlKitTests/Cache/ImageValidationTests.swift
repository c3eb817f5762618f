import Testing
@testable import FeedCrawlKit

@Suite("ImageValidation")
struct ImageValidationTests {
    typealias F = ImageFixtures
    static let png = F.png(width: 150, height: 99)

    func check(
        status: Int = 200, type: String? = "image/png", length: Int64? = nil,
        received: Int64? = nil, body: [UInt8] = png, delimited: Bool = true,
        max: Int64 = ImageValidation.defaultMaxBytes
    ) -> ImageValidation.Decision {
        var structure = ImageStructureCheck()
        structure.update(body)
        return ImageValidation.validate(
            status: status, contentType: type, contentLength: length ?? Int64(body.count),
            bytesReceived: received ?? Int64(body.count), head: Array(body.prefix(BodyDigest.headLimit)),
            structure: structure.finish(), bodyDelimited: delimited, maxBytes: max)
    }

    @Test func acceptsImages() {
        #expect(check() == .accept(ImageInfo(format: .png, width: 150, height: 99)))
        #expect(check(type: "image/jpeg; charset=binary", body: F.jpeg(width: 640, height: 426))
            == .accept(ImageInfo(format: .jpeg, width: 640, height: 426)))
        // Generic binary types and a missing header defer to the magic bytes.
        #expect(check(type: "application/octet-stream") == .accept(ImageInfo(format: .png, width: 150, height: 99)))
        #expect(check(type: "Binary/Octet-Stream") == .accept(ImageInfo(format: .png, width: 150, height: 99)))
        #expect(check(type: nil, length: nil) == .accept(ImageInfo(format: .png, width: 150, height: 99)))
        // A mislabelled image is still the image its bytes say it is.
        #expect(check(type: "image/jpeg", body: F.gif(width: 2, height: 3)) == .accept(ImageInfo(format: .gif, width: 2, height: 3)))
        #expect(check(status: 203) == .accept(ImageInfo(format: .png, width: 150, height: 99)))
    }

    @Test func rejectsNonImages() {
        let html = Array("\u{FEFF}\n  <!DOCTYPE html><html><body>Rate limited</body></html>".utf8)
        #expect(check(type: "text/html; charset=utf-8", body: html) == .reject(reason: "not an image (text/html)"))
        #expect(check(type: "application/json", body: Array("{}".utf8)) == .reject(reason: "not an image (application/json)"))
        #expect(check(type: "application/octet-stream", body: html) == .reject(reason: "not an image (HTML body)"))
        #expect(check(type: nil, body: Array("<html>".utf8)) == .reject(reason: "not an image (HTML body)"))
        #expect(check(type: "image/png", body: Array("GIF88a plus some more bytes".utf8)) == .reject(reason: "wrong magic bytes"))
        #expect(check(type: "image/svg+xml", body: Array("<svg xmlns='x'/>".utf8))
            == .reject(reason: "unsupported image type (image/svg+xml)"))
        // Right magic bytes, the file cut short in a body whose length the server announced:
        // the server sent an incomplete image.
        let cut = check(body: Array(Self.png.prefix(20)))
        guard case .reject(let reason) = cut else {
            Issue.record("expected a rejection, got \(cut)")
            return
        }
        #expect(reason.hasPrefix("truncated PNG"), "\(reason)")
        #expect(check(length: 0, body: []) == .reject(reason: "empty body"))
    }

    @Test func sizeLimits() {
        let max: Int64 = 20 << 20
        #expect(check(length: max + 1, received: 10) == .reject(reason: "too large (> 20 MiB)"))
        #expect(check(length: nil, received: max + 1) == .reject(reason: "too large (> 20 MiB)"))
        #expect(check(length: max, received: max) == .accept(ImageInfo(format: .png, width: 150, height: 99)))
        #expect(check(length: 2000, max: 1536) == .reject(reason: "too large (> 1.5 KiB)"))
        #expect(ImageValidation.checkHeaders(status: 200, contentType: "image/png", contentLength: max + 1)
            == .reject(reason: "too large (> 20 MiB)"))
    }

    @Test func shortBodyIsTransient() {
        #expect(check(length: 5000, received: 1200) == .transient(reason: "body cut short (1200 of 5000 bytes)"))
        // Cut short wins over an unreadable head: a retry may fix both.
        #expect(check(length: 5000, received: 10, body: Array(Self.png.prefix(10)))
            == .transient(reason: "body cut short (10 of 5000 bytes)"))
    }

    @Test func anImageCutShortByAClosedConnectionIsTransient() {
        // No Content-Length, no chunked coding: the connection's end was the body's end, and an
        // image that stops early there was cut in transit. A retry may bring it whole.
        let cut = check(length: nil, body: Array(Self.png.prefix(Self.png.count - 12)), delimited: false)
        guard case .transient(let reason) = cut else {
            Issue.record("expected a transient failure, got \(cut)")
            return
        }
        #expect(reason.hasPrefix("connection closed before the end of the image (truncated PNG"), "\(reason)")
        // The same image whole over such a connection is fine.
        #expect(check(length: nil, delimited: false) == .accept(ImageInfo(format: .png, width: 150, height: 99)))
    }

    @Test func httpStatus() {
        #expect(check(status: 404) == .reject(reason: "HTTP 404"))
        #expect(check(status: 403) == .reject(reason: "HTTP 403"))
        #expect(check(status: 304) == .reject(reason: "HTTP 304"))
        // A 204 is the server's answer, not a bad image: failed, not rejected.
        #expect(check(status: 204) == .fail(reason: "HTTP 204 (no content)"))
        #expect(check(status: 206) == .reject(reason: "unexpected partial content (HTTP 206)"))
        #expect(check(status: 503) == .transient(reason: "HTTP 503"))
        #expect(check(status: 429) == .transient(reason: "HTTP 429"))
        #expect(check(status: 408) == .transient(reason: "HTTP 408"))
    }

    @Test func headerChecksAloneAllowGoodHeaders() {
        #expect(ImageValidation.checkHeaders(status: 200, contentType: "image/webp", contentLength: 12_000) == nil)
        #expect(ImageValidation.checkHeaders(status: 200, contentType: nil, contentLength: nil) == nil)
        #expect(ImageValidation.checkHeaders(status: 200, contentType: "", contentLength: nil) == nil)
        #expect(ImageValidation.checkHeaders(status: 200, contentType: "text/plain", contentLength: nil)
            == .reject(reason: "not an image (text/plain)"))
    }

    @Test func untrustedContentTypeIsCleanedInReasons() {
        let decision = check(type: "text/\u{1B}[31mevil\u{7}" + String(repeating: "x", count: 200))
        guard case .reject(let reason) = decision else {
            Issue.record("expected a rejection, got \(decision)")
            return
        }
        #expect(!reason.unicodeScalars.contains { $0.value < 0x20 })
        #expect(reason.count < 90)
        #expect(reason.hasPrefix("not an image (text/evil"))
    }

    @Test func mediaTypeNormalisation() {
        #expect(ImageValidation.mediaType("Image/PNG ; charset=x") == "image/png")
        #expect(ImageValidation.mediaType("  image/jpeg") == "image/jpeg")
        #expect(ImageValidation.mediaType(";") == "")
    }
}
