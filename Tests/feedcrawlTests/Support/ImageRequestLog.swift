import DemoFeed
import Foundation

/// A `DemoFeedServer` whose image requests are counted per path (the feed's own answers are
/// unchanged): to see that each URL was fetched once, or not at all.
final class ImageRequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private(set) var server: DemoFeedServer!

    init(options: DemoFeedOptions = .small()) throws {
        var options = options
        options.override = { [unowned self] request in
            if request.path.hasPrefix("/img/") { lock.withLock { counts[request.path, default: 0] += 1 } }
            return nil
        }
        server = try DemoFeedServer(options: options)
    }

    /// Requests per image path since the start or the last `reset`.
    var requests: [String: Int] { lock.withLock { counts } }

    /// Forgets the counts here and the server's stats.
    func reset() {
        lock.withLock { counts = [:] }
        server.resetStats()
    }

    /// The path of an image URL of this server (`/img/...`).
    func path(of url: String) -> String {
        url.hasPrefix(server.baseURL) ? String(url.dropFirst(server.baseURL.count)) : url
    }

    var environment: [String: String] { ["PIXABAY_KEY": server.apiKey] }

    /// Arguments that crawl both sources of this feed into `out`.
    func arguments(out: String, pages: Int = 2, perPage: Int = 15) -> [String] {
        ["--pixabay-url", server.pixabayURL, "--launches-url", server.launchesURL,
         "--pages", String(pages), "--per-page", String(perPage), "--out", out]
    }

    func stop() { server.stop() }
}

/// A tiny RFC 4180 reader for the listings' CSV (quoted fields, doubled quotes; no newlines
/// inside fields, which the listing never writes).
enum CSVRows {
    static func parse(_ text: String) -> [[String]] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            var fields: [String] = []
            var field = ""
            var quoted = false
            var iterator = Array(line).makeIterator()
            var pending: Character? = nil
            while let c = pending ?? iterator.next() {
                pending = nil
                if quoted {
                    if c == "\"" {
                        let next = iterator.next()
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else {
                        field.append(c)
                    }
                } else if c == "\"" {
                    quoted = true
                } else if c == "," {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(c)
                }
            }
            fields.append(field)
            return fields
        }
    }
}
