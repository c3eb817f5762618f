@testable import FeedCrawlKit
import Testing

@Suite("MetricsPush")
struct MetricsPushUnitTests {
    @Test func aShardPushesToItsOwnGroup() throws {
        #expect(MetricsPush(baseURL: "http://gw:9091//").groupURL == "http://gw:9091/metrics/job/feedcrawl")
        let shard = try #require(Shard("2/4"))
        // base64url of "2/4" is "Mi80"; of "10/12", "MTAvMTI=".
        #expect(MetricsPush(baseURL: "http://gw:9091", shard: shard).groupURL
            == "http://gw:9091/metrics/job/feedcrawl/shard@base64/Mi80")
        #expect(MetricsPush.base64URL("10/12") == "MTAvMTI=")
        #expect(MetricsPush.base64URL("\u{FB}\u{FF}") == "w7vDvw==")
        #expect(MetricsPush.base64URL("??>") == "Pz8-")
    }

    @Test func onlyHTTPURLsWithAHostAreTaken() {
        #expect(MetricsPush.isValid("http://127.0.0.1:9091"))
        #expect(MetricsPush.isValid("HTTPS://pushgateway.monitoring.svc:9091/"))
        #expect(!MetricsPush.isValid("pushgateway:9091"))
        #expect(!MetricsPush.isValid("http://"))
        #expect(!MetricsPush.isValid("ftp://gw"))
        #expect(!MetricsPush.isValid("http://gw:9091/a b"))
    }

    @Test func theLastSuccessIsReadFromTheGroupsOwnSeries() throws {
        let text = """
            # TYPE feedcrawl_last_success_timestamp_seconds gauge
            feedcrawl_last_success_timestamp_seconds{instance="",job="other"} 5
            feedcrawl_last_success_timestamp_seconds{instance="",job="feedcrawl",shard="1/2"} 1.7000000015e+09
            feedcrawl_last_success_timestamp_seconds{instance="",job="feedcrawl"} 1.6e+09
            """
        #expect(MetricsPush.lastSuccess(in: text, shard: nil) == 1.6e9)
        #expect(MetricsPush.lastSuccess(in: text, shard: try #require(Shard("1/2"))) == 1_700_000_001.5)
        #expect(MetricsPush.lastSuccess(in: text, shard: try #require(Shard("0/2"))) == nil)
        #expect(MetricsPush.labels(#"a="x\"y",b="",c="z\\""#[...]) == ["a": "x\"y", "b": "", "c": "z\\"])

        var file = MetricsFile(samples: [.init("feedcrawl_last_success_timestamp_seconds", [], 0)])
        file.keepLastSuccess(atLeast: 1.6e9)
        #expect(file.samples.first?.value == 1.6e9)
        file.keepLastSuccess(atLeast: 5)
        #expect(file.samples.first?.value == 1.6e9)
    }
}
