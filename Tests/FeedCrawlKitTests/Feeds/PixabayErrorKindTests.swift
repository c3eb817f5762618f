import Testing
@testable import FeedCrawlKit

@Suite struct PixabayErrorKindTests {
    @Test func realBodies() {
        #expect(PixabayErrorKind.classify(status: 400, body: PixabayFixtures.errorInvalidKey.bytes) == .invalidKey)
        #expect(PixabayErrorKind.classify(status: 400, body: PixabayFixtures.errorInvalidKeyShort.bytes) == .invalidKey)
        #expect(PixabayErrorKind.classify(status: 400, body: PixabayFixtures.errorPageOutOfRange.bytes) == .pageOutOfRange)
        #expect(PixabayErrorKind.classify(status: 429, body: PixabayFixtures.errorRateLimit.bytes) == .rateLimited)
    }

    @Test func rateLimitedRegardlessOfBody() {
        #expect(PixabayErrorKind.classify(status: 429, body: []) == .rateLimited)
    }

    @Test func perPageOutOfRangeIsOtherWithTheTrimmedText() {
        #expect(PixabayErrorKind.classify(status: 400, body: ("  " + PixabayFixtures.errorPerPageOutOfRange + "\r\n").bytes)
            == .other(#"[ERROR 400] "per_page" is out of valid range."#))
    }

    @Test func pageTextOnlyCountsWith400() {
        #expect(PixabayErrorKind.classify(status: 500, body: PixabayFixtures.errorPageOutOfRange.bytes)
            == .other(PixabayFixtures.errorPageOutOfRange))
    }

    @Test func otherBodiesAreOneLineClippedAndRedacted() {
        let body = "<html>\n<title>502 Bad Gateway</title> key=SEKRET " + String(repeating: "z", count: 400)
        let kind = PixabayErrorKind.classify(status: 502, body: body.bytes, redactor: SecretRedactor(secrets: ["SEKRET"]))
        guard case .other(let message) = kind else {
            Issue.record("expected .other, got \(kind)")
            return
        }
        #expect(message.hasPrefix("<html> <title>502 Bad Gateway</title> key=*** zzz"))
        #expect(message.count == PixabayErrorKind.maxMessageLength + 1)
    }

    @Test func emptyBody() {
        #expect(PixabayErrorKind.classify(status: 503, body: []) == .other("HTTP 503 with an empty body"))
    }
}
