import Testing
@testable import FeedCrawlKit

@Suite struct SecretRedactorTests {
    private func pixabayURL(key: String, query: String) -> String {
        var config = PixabaySourceConfiguration(url: "https://pixabay.com/api/", key: key)
        config.query = query
        return config.pageURL(1)
    }

    @Test func redactsEveryOccurrence() {
        let r = SecretRedactor(secrets: ["12345678-abcdef0123456789abcdef01"])
        let text = "key=12345678-abcdef0123456789abcdef01 and again 12345678-abcdef0123456789abcdef01!"
        #expect(r.redact(text) == "key=*** and again ***!")
    }

    @Test func redactsPercentEncodedFormsInBothHexCases() {
        let r = SecretRedactor(secrets: ["a b/c+d"])
        #expect(r.redact("x=a%20b%2Fc%2Bd") == "x=***")
        #expect(r.redact("x=a%20b%2fc%2bd") == "x=***")
        #expect(r.redact("plain a b/c+d here") == "plain *** here")
    }

    @Test func shortSecretsAreRedactedAsWholeTokensAndEmptyOnesIgnored() {
        let r = SecretRedactor(secrets: ["ab", ""])
        #expect(r.redact("xaby ab key=ab&q=\"ab\" /ab/ ab") == "xaby *** key=***&q=\"***\" /***/ ***")
        #expect(r.redact(bytes: Array("ab,xab".utf8)) == Array("***,xab".utf8))
        #expect(SecretRedactor(secrets: [""]).redact("unchanged") == "unchanged")
    }

    /// Issue 19: a short key used to turn `pixabay.com` into `pi***abay.com`.
    @Test func aShortKeyDoesNotMangleTheHostYetNeverShows() {
        for key in ["xab", "pi", "abay", "a b"] {
            let r = SecretRedactor(secrets: [key])
            let url = pixabayURL(key: key, query: "cat")
            #expect(r.redactURL(url) == "https://pixabay.com/api/?q=cat&image_type=all&per_page=100&page=1", "\(key)")
            #expect(r.redact("GET https://pixabay.com/api/ failed") == "GET https://pixabay.com/api/ failed")
            // As a value it is still hidden, in the plain and the encoded form.
            let encoded = FeedPercentEncoding.encode(key, uppercaseHex: true)
            #expect(r.redact("{\"key\":\"\(key)\"} echo=\(encoded)&") == "{\"key\":\"***\"} echo=***&", "\(key)")
        }
        // From 8 bytes on, a key is hidden inside words too.
        #expect(SecretRedactor(secrets: ["abcdefgh"]).redact("xabcdefghy") == "x***y")
    }

    @Test func longerSecretWinsOverItsPrefix() {
        let r = SecretRedactor(secrets: ["abc", "abcdef"])
        #expect(r.redact("abcdef abc") == "*** ***")
    }

    @Test func redactURLRemovesKeyParameterEntirely() {
        let r = SecretRedactor(secrets: ["SECRETKEY1"])
        #expect(r.redactURL("https://pixabay.com/api/?key=SECRETKEY1&q=yellow%20flower&page=2")
            == "https://pixabay.com/api/?q=yellow%20flower&page=2")
        #expect(r.redactURL("https://pixabay.com/api/?q=x&key=SECRETKEY1") == "https://pixabay.com/api/?q=x")
        #expect(r.redactURL("https://pixabay.com/api/?key=SECRETKEY1") == "https://pixabay.com/api/")
        #expect(r.redactURL("https://h/api/?KEY=other&page=1#frag") == "https://h/api/?page=1#frag")
    }

    /// The one-pass check that lets most URLs skip the query rebuild: never says "no" for a URL
    /// with a `key` parameter.
    @Test func keyParameterCheck() {
        let with = ["h/?key=1", "h/?KEY=1", "h/?Key", "h/?a=1&key=2", "h/?a=1&kEy&b", "h/?&key=1", "h/?key#f",
                    "h/?\u{212A}ey=1", "h/?a=1&\u{212A}EY=2"]
        let without = ["h/", "h/?", "h/?a=1", "h/?apikey=1&monkey=2", "h/?keys=1", "h/?ke=1", "h/#?key=1", "h/?a=1#&key=2",
                       "h/key=1", "h/?a=key", "h/?a=1&k"]
        for url in with { #expect(SecretRedactor.mayHaveKeyParameter(url), "\(url)") }
        for url in without { #expect(!SecretRedactor.mayHaveKeyParameter(url), "\(url)") }
        // Where the check says "no", the full rebuild would have changed nothing either.
        let r = SecretRedactor(secrets: [])
        for url in without { #expect(r.redactURL(url) == url) }
        #expect(r.redactURL("h/?\u{212A}ey=1&a=2") == "h/?a=2")
    }

    @Test func redactURLAlsoRedactsSecretsElsewhere() {
        let r = SecretRedactor(secrets: ["my key"])
        #expect(r.redactURL("https://h/p/my%20key/?key=my%20key&echo=my%20key") == "https://h/p/***/?echo=***")
        // A parameter that merely ends in "key" stays.
        #expect(r.redactURL("https://h/?apikey=1&monkey=2") == "https://h/?apikey=1&monkey=2")
    }

    @Test func redactsAKeyBuiltIntoAPixabayURL() {
        let key = "47_x y" // needs encoding
        let url = pixabayURL(key: key, query: "cat")
        let r = SecretRedactor(secrets: [key])
        let shown = r.redactURL(url)
        #expect(!shown.contains("47_x"))
        #expect(shown == "https://pixabay.com/api/?q=cat&image_type=all&per_page=100&page=1")
    }

    @Test func redactsAtBothEndsBackToBackAndAfterNearMisses() {
        let r = SecretRedactor(secrets: ["abababab"])
        #expect(r.redact("abababab") == "***")
        #expect(r.redact("ababababab") == "***ab")          // leftmost first, no overlap
        #expect(r.redact("abababababababab") == "******")
        #expect(r.redact("abababa abababab") == "abababa ***")      // a near miss before a hit
        #expect(r.redact("xabababaXabababab") == "xabababaX***")
        #expect(r.redact("abababa") == "abababa")               // shorter than the secret
        #expect(r.redact("") == "")
        let bytes = Array("...abababab\u{0}\u{FF}abababab".utf8) + [0xFF, 0x00]
        #expect(r.redact(bytes: bytes) == Array("...***\u{0}\u{FF}***".utf8) + [0xFF, 0x00])
    }

    @Test func textWithoutASecretComesBackUnchanged() {
        let r = SecretRedactor(secrets: ["SECRETKEY1"])
        let text = String(repeating: "SECRETKEY0 ", count: 1_000)
        #expect(r.redact(text) == text)
        #expect(r.redact(bytes: Array(text.utf8)) == Array(text.utf8))
    }
}
