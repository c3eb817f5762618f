import Testing
@testable import FeedCrawlKit
import FeedCrawlHTTP

@Suite struct FeedHeadersTests {
    @Test func parsesNameColonValueAsCurlDoes() throws {
        let header = try FeedHeaders.parse("Authorization:   Bearer abc.def  ")
        #expect(header == HTTPHeader(name: "Authorization", value: "Bearer abc.def"))
        #expect(try FeedHeaders.parse("X-Empty:") == HTTPHeader(name: "X-Empty", value: ""))
    }

    @Test(arguments: [
        ("NoColon", "expected \"Name: value\""),
        ("Bad Name: x", "is not a token"),
        ("X-Evil: a\r\nInjected: 1", "may not hold CR or LF"),
        ("X-Evil: a\nb", "may not hold CR or LF"),
        ("X-Bell: a\u{7}b", "control characters"),
        ("Host: example.org", "set by the transfer itself"),
        ("Content-Length: 5", "set by the transfer itself"),
    ])
    func refusesWhatCannotBeSentNamingTheHeaderNotTheValue(_ text: String, _ reason: String) {
        #expect {
            _ = try FeedHeaders.parse(text)
        } throws: { error in
            let description = (error as? FeedHeaders.Invalid)?.description ?? ""
            return description.contains(reason) && !description.contains("Injected") && !description.contains("example.org")
        }
    }

    @Test func secretsAreTheValueAndItsCredentials() {
        let headers = [HTTPHeader(name: "Authorization", value: "Bearer tok-123456"), HTTPHeader(name: "X-Api-Key", value: "k1")]
        #expect(FeedHeaders.secrets(headers) == ["Bearer tok-123456", "tok-123456", "k1"])
        let redactor = SecretRedactor(secrets: FeedHeaders.secrets(headers))
        #expect(redactor.redact("echo: tok-123456") == "echo: ***")
    }

    @Test func aGivenHeaderReplacesTheCrawlersOfTheSameName() {
        let merged = FeedHeaders.merged(
            [HTTPHeader(name: "Content-Type", value: "application/json"), HTTPHeader(name: "Accept", value: "*/*")],
            [HTTPHeader(name: "content-type", value: "application/graphql+json")])
        #expect(merged == [HTTPHeader(name: "Accept", value: "*/*"), HTTPHeader(name: "content-type", value: "application/graphql+json")])
    }
}
