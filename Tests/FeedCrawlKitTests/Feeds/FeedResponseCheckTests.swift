import Testing
@testable import FeedCrawlKit

@Suite struct FeedResponseCheckTests {
    @Test func jsonContentTypesPass() {
        for type in ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/problem+json", "text/json"] {
            #expect(FeedResponseCheck.check(status: 200, contentType: type, body: "{}".bytes) == nil, "\(type)")
        }
    }

    @Test func jsonBodyOn400StillGoesToTheDecoder() {
        #expect(FeedResponseCheck.check(status: 400, contentType: "application/json", body: LaunchesFixtures.validationError.bytes) == nil)
    }

    @Test func htmlWith200IsAnErrorWithAnExcerpt() {
        let body = "This server provides its GraphQL endpoint at <a href=\"/graphql\">/graphql</a>.\n"
        let result = FeedResponseCheck.check(status: 200, contentType: "text/html; charset=utf-8", body: body.bytes)
        #expect(result == "expected JSON, got text/html: This server provides its GraphQL endpoint at <a href=\"/graphql\">/graphql</a>.")
    }

    @Test func excerptIsClippedControlCharsCollapsedAndSecretsRedacted() {
        let secret = "k3y-SECRET"
        let page = "<!DOCTYPE html>\n<html>\r\n\t<head><title>Application error</title></head>\u{7}<body>"
            + " failed for /api/?key=\(secret) " + String(repeating: "x", count: 500) + "</body></html>"
        let result = FeedResponseCheck.check(status: 503, contentType: "text/html", body: page.bytes,
                                             redactor: SecretRedactor(secrets: [secret]))
        guard let reason = result else {
            Issue.record("expected an error, got \(result)")
            return
        }
        #expect(reason.hasPrefix("HTTP 503: expected JSON, got text/html: <!DOCTYPE html> <html> <head><title>Application error</title></head> <body> failed for /api/?key=*** x"))
        #expect(!reason.contains(secret))
        #expect(!reason.contains("\n") && !reason.contains("\t") && !reason.contains("\u{7}"))
        let excerpt = reason.split(separator: ": ", maxSplits: 2).last.map(String.init) ?? ""
        #expect(excerpt.count == FeedResponseCheck.excerptLength + 1) // + the ellipsis
        #expect(excerpt.hasSuffix("…"))
    }

    @Test func missingOrPlainContentTypeIsSniffed() {
        #expect(FeedResponseCheck.check(status: 200, contentType: nil, body: "  [1]".bytes) == nil)
        #expect(FeedResponseCheck.check(status: 200, contentType: "text/plain", body: [0xEF, 0xBB, 0xBF] + "{}".bytes) == nil)
        #expect(FeedResponseCheck.check(status: 400, contentType: "text/plain", body: PixabayFixtures.errorPageOutOfRange.bytes)
            == #"HTTP 400: expected JSON, got text/plain: [ERROR 400] "page" is out of valid range."#)
        #expect(FeedResponseCheck.check(status: 400, contentType: nil, body: PixabayFixtures.errorInvalidKey.bytes)
            == "HTTP 400: expected JSON, got no content type: [ERROR 400] Invalid API key. Note: This value is case-sensitive.")
        #expect(FeedResponseCheck.check(status: 200, contentType: nil, body: "[ ]".bytes) == nil)
        #expect(FeedResponseCheck.check(status: 200, contentType: nil, body: "[\n {\"id\":1}]".bytes) == nil)
        #expect(FeedResponseCheck.check(status: 200, contentType: nil, body: "[".bytes) != nil)
        #expect(FeedResponseCheck.check(status: 200, contentType: nil, body: "<html>".bytes)
            == "expected JSON, got no content type: <html>")
    }

    @Test func htmlIsRejectedEvenWhenItLooksLikeJSON() {
        #expect(FeedResponseCheck.check(status: 200, contentType: "text/html", body: "{\"a\":1}".bytes) != nil)
    }

    @Test func emptyNonJSONBody() {
        #expect(FeedResponseCheck.check(status: 502, contentType: "text/html", body: [])
            == "HTTP 502: expected JSON, got text/html with an empty body")
    }

    @Test func binaryGarbageDoesNotCrash() {
        let body: [UInt8] = [0xFF, 0xFE, 0x00, 0x01, 0xC3]
        guard let reason = FeedResponseCheck.check(status: 200, contentType: "image/png", body: body) else {
            Issue.record("expected error")
            return
        }
        #expect(reason.hasPrefix("expected JSON, got image/png: "))
    }
}
