import DemoFeed
import FoundationEssentials
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// Misbehaving servers: every item must end with a status that tells the truth, and whatever is
/// stored must be exactly the server's image.
@Suite("Server faults")
struct ServerFaultTests {
    enum Fault: Int, CaseIterable {
        case plain, chunked, closeDelimited, truncatedAlways, truncatedOnce, resetOnce, retryAfterOnce,
             unavailableAlways, redirectToOtherHost, stallAlways, stallOnce, slowDrip

        /// What the item must end as.
        var expected: ItemStatus {
            switch self {
            case .truncatedAlways, .unavailableAlways, .stallAlways: return .failed
            default: return .downloaded
            }
        }
    }

    static func respond(_ fault: Fault, attempt: Int, path: String, bytes: [UInt8], origin: String) -> ServerResponse? {
        let jpeg = [("Content-Type", "image/jpeg")]
        switch fault {
        case .plain:
            return nil
        case .chunked:
            return ServerResponse(headers: jpeg, body: .chunked(bytes, chunkSize: 333))
        case .closeDelimited:
            return ServerResponse(headers: jpeg, body: .closeDelimited(bytes))
        case .truncatedAlways:
            return ServerResponse(headers: jpeg, body: .truncated(bytes, sendBytes: bytes.count / 2))
        case .truncatedOnce:
            return attempt == 1 ? ServerResponse(headers: jpeg, body: .truncated(bytes, sendBytes: bytes.count / 3)) : nil
        case .resetOnce:
            return attempt == 1 ? ServerResponse(body: .reset) : nil
        case .retryAfterOnce:
            return attempt == 1 ? ServerResponse(status: 503, headers: [("Retry-After", "1")], body: .bytes(Array("busy".utf8))) : nil
        case .unavailableAlways:
            return ServerResponse(status: 503, headers: [("Retry-After", "0")], body: .bytes(Array("down".utf8)))
        case .redirectToOtherHost:
            return ServerResponse(status: 302, headers: [("Location", origin + path)])
        case .stallAlways:
            return ServerResponse(headers: jpeg, body: .stall)
        case .stallOnce:
            return attempt == 1 ? ServerResponse(headers: jpeg, body: .stall) : nil
        case .slowDrip:
            return ServerResponse(headers: jpeg, body: .drip(bytes, bytesPerSecond: 8_000))
        }
    }

    @Test func everyItemEndsWithATruthfulStatus() async throws {
        let perPage = 2 * Fault.allCases.count
        let feed = try await ScriptedFeed(perPage: perPage) { index, attempt, path, bytes, origin in
            Self.respond(Fault(rawValue: index % Fault.allCases.count)!, attempt: attempt, path: path, bytes: bytes, origin: origin)
        }
        let dir = TestDirectory()
        var configuration = feed.configuration(out: dir.path, perPage: perPage)
        configuration.retries = 1
        configuration.lowSpeedTimeSeconds = 1
        let report = try await Crawler(configuration: configuration).run()
        let items = try await archivedManifest(dir.path).items
        #expect(items.count == perPage)
        for path in feed.paths {
            let fault = Fault(rawValue: feed.indexOfPath[path]! % Fault.allCases.count)!
            let item = try #require(ScriptedFeed.item(items, path: path))
            #expect(item.status == fault.expected, "\(fault): \(item.status) \(item.soleImage?.error ?? "")")
            if item.status == .downloaded {
                #expect(item.soleImage?.sha256 == SHA256.hex(feed.images[path]!), "\(fault): stored bytes differ")
            }
            let error = item.soleImage?.error ?? ""
            switch fault {
            case .truncatedAlways: #expect(error.contains("cut short"), "\(error)")
            case .unavailableAlways: #expect(error.contains("HTTP 503"), "\(error)")
            case .stallAlways: #expect(error.contains("timed out"), "\(error)")
            case .retryAfterOnce:
                let times = feed.requestTimes(path)
                #expect(times.count == 2)
                if times.count == 2 { #expect(times[1] - times[0] >= .milliseconds(900), "Retry-After: 1 was honoured") }
            default: break
            }
            // Each fault really happened: one request when the first answer is usable, two when
            // it had to be retried (retries = 1).
            let once: Set<Fault> = [.truncatedOnce, .resetOnce, .retryAfterOnce, .stallOnce]
            let retried = fault.expected == .failed || once.contains(fault)
            #expect(feed.requestTimes(path).count == (retried ? 2 : 1), "\(fault): \(feed.requestTimes(path).count) requests")
        }
        #expect(report.count(.failed) == 2 * 3)
        // The origin served the page and the images once while the test set up, then the two
        // images redirected to it.
        #expect(feed.origin.requestCount == 1 + perPage + 2)
        let cacheProblems = await CacheCheck.problems(out: dir.path)
        #expect(cacheProblems.isEmpty, "\(cacheProblems)")
        #expect(CacheCheck.leftovers(out: dir.path).isEmpty, "\(CacheCheck.leftovers(out: dir.path))")
    }

    @Test(arguments: ["gzip-chunked", "gzip-length", "chunked", "close"])
    func pagesArriveWhateverTheFraming(_ framing: String) async throws {
        let feed = try await ScriptedFeed(perPage: 5, page: { json, _ in
            let gzipHeaders = [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
            switch framing {
            case "gzip-chunked": return ServerResponse(headers: gzipHeaders, body: .chunked(gzipStored(json), chunkSize: 100))
            case "gzip-length": return ServerResponse(headers: gzipHeaders, body: .bytes(gzipStored(json)))
            case "chunked": return ServerResponse(headers: [("Content-Type", "application/json")], body: .chunked(json, chunkSize: 64))
            default: return ServerResponse(headers: [("Content-Type", "application/json")], body: .closeDelimited(json))
            }
        }, image: { _, _, _, _, _ in nil })
        let dir = TestDirectory()
        let report = try await Crawler(configuration: feed.configuration(out: dir.path, perPage: 5)).run()
        #expect(report.sources.first?.failure == nil, "\(report.sources)")
        #expect(report.count(.downloaded) == 5)
        #expect(await CacheCheck.problems(out: dir.path).isEmpty)
    }

    @Test func aBusyPageIsRetriedAfterRetryAfter() async throws {
        let times = Locked<[ContinuousClock.Instant]>([])
        let feed = try await ScriptedFeed(perPage: 3, page: { json, _ in
            let n = times.withLock { $0.append(.now); return $0.count }
            return n == 1 ? ServerResponse(status: 503, headers: [("Retry-After", "1")], body: .bytes(Array("busy".utf8)))
                : .json(json)
        }, image: { _, _, _, _, _ in nil })
        let dir = TestDirectory()
        let report = try await Crawler(configuration: feed.configuration(out: dir.path, perPage: 3)).run()
        #expect(report.count(.downloaded) == 3)
        let seen = times.withLock { $0 }
        #expect(seen.count == 2)
        if seen.count == 2 { #expect(seen[1] - seen[0] >= .milliseconds(900)) }
    }

    @Test func aPageCutShortIsRetriedAndAnEndlessPageIsRefused() async throws {
        let seen = Locked(0)
        let feed = try await ScriptedFeed(perPage: 4, page: { json, _ in
            let n = seen.withLock { $0 += 1; return $0 }
            let headers = [("Content-Type", "application/json")]
            return n == 1 ? ServerResponse(headers: headers, body: .truncated(json, sendBytes: json.count / 2))
                : ServerResponse(headers: headers, body: .bytes(json))
        }, image: { _, _, _, _, _ in nil })
        let dir = TestDirectory()
        let report = try await Crawler(configuration: feed.configuration(out: dir.path, perPage: 4)).run()
        #expect(report.count(.downloaded) == 4)
        #expect(seen.withLock { $0 } == 2)

        let endless = try await ScriptedFeed(perPage: 4, page: { _, _ in
            ServerResponse(headers: [("Content-Type", "application/json")], body: .endless(chunkSize: 4096))
        }, image: { _, _, _, _, _ in nil })
        let other = TestDirectory()
        var configuration = endless.configuration(out: other.path, perPage: 4)
        configuration.maxPageBytes = 256 << 10
        let failed = try await Crawler(configuration: configuration).run()
        let failure = try #require(failed.sources.first?.failure)
        #expect(failure.hasSuffix("body larger than 256 KiB (raise it with --max-page-bytes)"), "\(failure)")
        #expect(failed.itemCount == 0)
    }
}
