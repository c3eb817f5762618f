import FoundationEssentials
import FeedCrawlSupport
import FeedCrawlHTTP

/// `--metrics-push URL`: the metrics `MetricsFile` holds, pushed to a Prometheus Pushgateway at
/// the end of a run or a merge, the Pushgateway's convention for batch jobs: one `PUT` of the
/// text format to `URL/metrics/job/feedcrawl`, which replaces every metric of that group.
///
/// A shard's run pushes to its own group, `URL/metrics/job/feedcrawl/shard@base64/<K/N in
/// base64url>`, so the grouping label `shard` holds `K/N`, the very value of the `shard` label
/// its samples carry (a `/` cannot go in a path segment as it is), and shards do not replace each
/// other's metrics. A run without `--shard` and a merge push to `URL/metrics/job/feedcrawl`.
///
/// `feedcrawl_last_success_timestamp_seconds` of a run that did not end with status 0 is kept
/// from the group's value on the Pushgateway (read from `URL/metrics` before the push), as the
/// file keeps it from the previous file.
public struct MetricsPush: Sendable {
    /// What went wrong; `description` names the URL and why.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The job label of every push: `feedcrawl`.
    public static let job = "feedcrawl"

    /// The Pushgateway's base URL as given (`http://` or `https://`), without trailing `/`.
    public var baseURL: String
    /// The shard whose group the push replaces; `nil` (default) for a whole run or a merge.
    public var shard: Shard?
    /// The bound on each request (connect, send, answer) in seconds. Default 10.
    public var timeoutSeconds: Int = 10
    /// The engine's settings (user agent, CA bundle, proxy). Default `.init()`.
    public var engine: HTTPEngine.Configuration = .init()

    /// A push to the Pushgateway at `baseURL` for `shard` (default `nil`: no shard); the other
    /// properties take their defaults.
    public init(baseURL: String, shard: Shard? = nil) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.shard = shard
    }

    /// Whether `url` can be a Pushgateway's base URL: `http://` or `https://` and a host.
    public static func isValid(_ url: String) -> Bool {
        let lower = url.lowercased()
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            let rest = url.dropFirst(scheme.count)
            return !rest.isEmpty && !rest.hasPrefix("/") && !url.contains(where: { $0 == " " || $0.isNewline })
        }
        return false
    }

    /// The URL the metrics are PUT to: `baseURL/metrics/job/feedcrawl`, plus
    /// `/shard@base64/<base64url of K/N>` for a shard.
    public var groupURL: String {
        var url = baseURL + "/metrics/job/" + Self.job
        if let shard { url += "/shard@base64/" + Self.base64URL(shard.description) }
        return url
    }

    /// Pushes `metrics`, first keeping `feedcrawl_last_success_timestamp_seconds` from the
    /// Pushgateway when `metrics` records no success of this run (`exitStatus` not 0). Throws
    /// `Failure` when the Pushgateway cannot be reached in time or does not answer 2xx.
    public func push(_ metrics: MetricsFile, exitStatus: Int) async throws(Failure) {
        var metrics = metrics
        do {
            try await HTTPEngine.withEngine(configuration: engine) { engine in
                if exitStatus != 0, let previous = await lastSuccess(engine) {
                    metrics.keepLastSuccess(atLeast: previous)
                }
                var request = HTTPRequest(
                    url: groupURL, method: .put,
                    headers: [HTTPHeader(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")],
                    body: Array(metrics.text.utf8))
                bound(&request)
                let response = try await engine.perform(request)
                guard response.isSuccess else {
                    let text = TerminalText.sanitize(
                        String(String(decoding: response.body.prefix(300), as: UTF8.self).trimmingASCIIWhitespace()))
                    throw Failure(description: "\(groupURL) answered \(response.status)\(text.isEmpty ? "" : ": \(text)")")
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(groupURL): \(error)")
        }
    }

    /// `feedcrawl_last_success_timestamp_seconds` of this push's group on the Pushgateway, or
    /// `nil` when it has none or cannot be read.
    func lastSuccess(_ engine: HTTPEngine) async -> Double? {
        var request = HTTPRequest(url: baseURL + "/metrics")
        request.maxBytes = 64 << 20
        bound(&request)
        guard let response = try? await engine.perform(request), response.isSuccess else { return nil }
        return Self.lastSuccess(in: String(decoding: response.body, as: UTF8.self), shard: shard)
    }

    /// The value of `feedcrawl_last_success_timestamp_seconds{job="feedcrawl"}` in a
    /// Pushgateway's `/metrics` text for `shard`'s group (the series whose `shard` label is
    /// `K/N`, or has none for `nil`).
    static func lastSuccess(in text: String, shard: Shard?) -> Double? {
        let name = "feedcrawl_last_success_timestamp_seconds{"
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            guard let close = line.lastIndex(of: "}") else { continue }
            let labels = Self.labels(line[line.index(line.startIndex, offsetBy: name.count)..<close])
            guard labels["job"] == job, labels["shard"] == shard?.description else { continue }
            if let value = line[line.index(after: close)...].split(separator: " ").first.flatMap({ Double($0) }) {
                return value
            }
        }
        return nil
    }

    /// The labels of a sample's `{…}` (without the braces), unescaped.
    static func labels(_ text: Substring) -> [String: String] {
        var labels: [String: String] = [:]
        var index = text.startIndex
        while index < text.endIndex {
            guard let equals = text[index...].firstIndex(of: "=") else { break }
            let name = text[index..<equals].filter { $0 != "," && $0 != " " }
            var value = ""
            var cursor = text.index(after: equals)
            guard cursor < text.endIndex, text[cursor] == "\"" else { break }
            cursor = text.index(after: cursor)
            while cursor < text.endIndex, text[cursor] != "\"" {
                if text[cursor] == "\\", text.index(after: cursor) < text.endIndex {
                    cursor = text.index(after: cursor)
                    value.append(text[cursor] == "n" ? "\n" : text[cursor])
                } else {
                    value.append(text[cursor])
                }
                cursor = text.index(after: cursor)
            }
            labels[String(name)] = value
            index = cursor < text.endIndex ? text.index(after: cursor) : cursor
        }
        return labels
    }

    private func bound(_ request: inout HTTPRequest) {
        request.connectTimeoutMs = min(timeoutSeconds, 10) * 1000
        request.totalTimeoutMs = timeoutSeconds * 1000
    }

    /// `text` in base64url (RFC 4648 §5), padded, as the Pushgateway takes a `label@base64` value.
    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_")
    }
}

extension MetricsFile {
    /// Raises `feedcrawl_last_success_timestamp_seconds` to `value` where it is lower (a run that
    /// failed keeps the last success recorded elsewhere).
    public mutating func keepLastSuccess(atLeast value: Double) {
        for index in samples.indices where samples[index].name == "feedcrawl_last_success_timestamp_seconds" {
            samples[index].value = max(samples[index].value, value)
        }
    }
}
