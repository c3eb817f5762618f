import DemoFeed
import FoundationEssentials
import Glibc
import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

/// A feed page written by an attacker, next to ordinary items: every hostile item ends
/// `rejected` or `failed` with a reason, nothing is written outside OUT, nothing outside OUT is
/// read, the manifest holds no control character, and the good items of the page still arrive.
@Suite("Hostile feed")
struct HostileFeedTests {
    /// One hostile hit: its id, its previewURL (`{front}` stands for the front server) and what
    /// the scripted server answers on its path, if anything.
    struct Hostile {
        var id: String
        var url: String
        var title = "hostile"
    }

    static let secret = "feedcrawl-sentinel-" + String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// What the file outside OUT holds; must never show up inside OUT.
    static let secretContent = "secret-content-" + String(UInt64.random(in: 1...UInt64.max), radix: 36)

    /// Why the item or its images were refused: the listing's error, else its images' errors.
    static func reason(_ item: ManifestItem) -> String {
        item.error ?? item.images.compactMap(\.error).joined(separator: "; ")
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    @Test func hostileItemsAreRefusedAndGoodOnesArrive() async throws {
        let parent = TestDirectory()
        let out = parent.file("out")
        let secretPath = parent.file("secret.txt")
        try AtomicFile.write(Array(Self.secretContent.utf8), to: secretPath)
        let hostile: [Hostile] = [
            Hostile(id: "file", url: "file://\(secretPath)"),
            Hostile(id: "passwd", url: "file:///etc/passwd"),
            Hostile(id: "ftp", url: "ftp://127.0.0.1/x.jpg"),
            Hostile(id: "gopher", url: "gopher://127.0.0.1:70/1"),
            Hostile(id: "data", url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"),
            Hostile(id: "javascript", url: "javascript:alert(document.cookie)"),
            Hostile(id: "long", url: "{front}/img/" + String(repeating: "a", count: 10_000) + ".jpg"),
            Hostile(id: "to-file", url: "{front}/hostile/redirect-file.jpg"),
            Hostile(id: "to-ftp", url: "{front}/hostile/redirect-ftp.jpg"),
            Hostile(id: "loop", url: "{front}/hostile/loop.jpg"),
            Hostile(id: "html", url: "{front}/hostile/page.html"),
            Hostile(id: "html-as-jpeg", url: "{front}/hostile/html-as.jpg"),
            Hostile(id: "endless", url: "{front}/hostile/endless.jpg"),
            Hostile(id: "two-gigabytes", url: "{front}/hostile/huge.jpg"),
            Hostile(id: "nul\u{0}id", url: "{front}/hostile/never-requested-1.jpg"),
            Hostile(id: "line\nbreak", url: "{front}/hostile/never-requested-2.jpg"),
            Hostile(id: "\u{1B}[31mred", url: "{front}/hostile/never-requested-3.jpg"),
        ]
        let good = 4
        let paths = Locked<[String]>([])
        let traversal = "../../../../../tmp/" + Self.secret
        let escapes = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{0}title\r\nsecond line\u{9B}31m"
        let secretPathForServer = secretPath
        let feed = try await ScriptedFeed(perPage: good + 2, page: { _, front in
            var hits: [String] = []
            let real = paths.withLock { $0 }
            for (index, path) in real.enumerated() {
                let id = index == good ? Self.jsonString(traversal) : index == good + 1 ? "\"good-\(index)\"" : String(index + 1)
                let title = index == good + 1 ? Self.jsonString(escapes) : "\"good\""
                hits.append(#"{"id":\#(id),"tags":\#(title),"previewURL":\#(Self.jsonString(front + path))}"#)
            }
            for hostileItem in hostile {
                let url = hostileItem.url.replacing("{front}", with: front)
                hits.append(#"{"id":\#(Self.jsonString(hostileItem.id)),"tags":"hostile","previewURL":\#(Self.jsonString(url))}"#)
            }
            // A good preview with hostile larger variants: each image on its own.
            if let first = real.first {
                hits.append(#"{"id":"mixed","tags":"mixed","previewURL":\#(Self.jsonString(front + first)),"webformatURL":"file:///etc/passwd","largeImageURL":\#(Self.jsonString(front + "/hostile/redirect-file.jpg"))}"#)
            }
            return .json(Array(#"{"total":\#(hits.count),"totalHits":\#(hits.count),"hits":[\#(hits.joined(separator: ","))]}"#.utf8))
        }, other: { request, front in
            let jpeg = [("Content-Type", "image/jpeg")]
            let html = Array("<!DOCTYPE html><html><body>not an image</body></html>".utf8)
            switch request.path {
            case "/hostile/redirect-file.jpg": return ServerResponse(status: 302, headers: [("Location", "file://\(secretPathForServer)")])
            case "/hostile/redirect-ftp.jpg": return ServerResponse(status: 301, headers: [("Location", "ftp://127.0.0.1/x.jpg")])
            case "/hostile/loop.jpg": return ServerResponse(status: 302, headers: [("Location", front + "/hostile/loop.jpg")])
            case "/hostile/page.html": return ServerResponse(headers: [("Content-Type", "text/html")], body: .bytes(html))
            case "/hostile/html-as.jpg": return ServerResponse(headers: jpeg, body: .bytes(html))
            case "/hostile/endless.jpg": return ServerResponse(headers: jpeg, body: .endless(chunkSize: 16_384))
            case "/hostile/huge.jpg":
                return ServerResponse(headers: jpeg + [("Content-Length", "2147483648")], body: .bytes([0xFF, 0xD8, 0xFF]))
            default: return nil
            }
        }, image: { _, _, _, _, _ in nil })
        paths.withLock { $0 = feed.paths }

        var configuration = feed.configuration(out: out, perPage: good + 2)
        if var source = configuration.sources[0].feed as? PixabaySourceConfiguration {
            source.variants = [.preview, .webformat, .large]
            configuration.sources[0] = .pixabay(source)
        }
        configuration.maxImageBytes = 256 << 10
        configuration.retries = 1
        configuration.lowSpeedTimeSeconds = 2
        let report = try await Crawler(configuration: configuration).run()
        #expect(report.sources.first?.failure == nil)
        let items = try await archivedManifest(out).items
        #expect(items.count == good + 2 + hostile.count + 1)

        // The good items, including the one with a traversal id and the one with escapes in its title.
        for (index, path) in feed.paths.enumerated() {
            let item = try #require(ScriptedFeed.item(items, path: path))
            #expect(item.status == .downloaded, "\(item.id): \(item.status) \(Self.reason(item))")
            #expect(item.soleImage?.sha256 == SHA256.hex(feed.images[path]!))
            if index == good { #expect(item.id == traversal) }
        }
        // Every hostile item refused, with a reason.
        let hostileItems = items.filter { $0.title == "hostile" }
        #expect(hostileItems.count == hostile.count)
        for item in hostileItems {
            #expect(item.status == .rejected || item.status == .failed, "\(item.id): \(item.status)")
            #expect(!Self.reason(item).isEmpty, "\(item.id) has no reason")
            #expect(item.images.allSatisfy { $0.file == nil })
        }
        let byID = Dictionary(hostileItems.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for id in ["file", "passwd", "ftp", "gopher", "data", "javascript", "long", "to-file", "to-ftp", "loop",
                   "html", "html-as-jpeg", "endless", "two-gigabytes"] {
            #expect(byID[id]?.status == .rejected, "\(id): \(byID[id]?.status.rawValue ?? "missing") \(byID[id].map(Self.reason) ?? "")")
        }
        func reason(_ id: String) -> String { byID[id].map(Self.reason) ?? "" }
        #expect(reason("long").contains("too long"))
        #expect(reason("loop").contains("redirect"))
        #expect(reason("two-gigabytes").contains("larger than"), "\(reason("two-gigabytes"))")
        #expect(reason("endless").contains("larger than"), "\(reason("endless"))")
        #expect(reason("html").contains("not an image"))
        #expect(reason("html-as-jpeg").contains("not an image"))
        // A URL refused before any request is the image's problem, not the listing's.
        for id in ["file", "passwd", "ftp", "gopher", "data", "javascript", "long"] {
            #expect(byID[id]?.error == nil && byID[id]?.soleImage?.status == .rejected, "\(id)")
        }
        // The mixed item keeps its good preview; its other variants are refused.
        let mixed = try #require(items.first { $0.id == "mixed" })
        #expect(mixed.status == .rejected)
        #expect(mixed.image("preview")?.status == .downloaded)
        #expect(mixed.image("preview")?.sha256 == SHA256.hex(feed.images[feed.paths[0]]!))
        #expect(mixed.image("webformat")?.status == .rejected)
        #expect(mixed.image("webformat")?.error?.contains("not an http(s) URL") == true, "\(mixed.image("webformat")?.error ?? "")")
        #expect(mixed.image("large")?.status == .rejected)
        #expect(mixed.image("large")?.file == nil && mixed.image("webformat")?.file == nil)
        // Ids with NUL, a line break or an escape are not used: the items get synthetic ids.
        #expect(hostileItems.filter { $0.id.hasPrefix("page1-index") }.count == 3)

        // No control character anywhere in the manifest's text.
        for item in items {
            let texts = [item.id, item.title, item.author ?? "", item.error ?? ""]
                + item.images.flatMap { [$0.url, $0.error ?? ""] }
            for text in texts {
                #expect(!text.unicodeScalars.contains { $0.properties.generalCategory == .control },
                        "control character in \(text.debugDescription)")
            }
        }
        // Nothing outside OUT was written; inside OUT only feedcrawl's own names: the root, the
        // lock, the contact sheet, the archive's files (named by the run or by a hash), kept feed
        // pages (named by a hash) and cache entries.
        #expect(TestDirectory.list(parent.path) == ["out", "secret.txt"])
        #expect(!fileExists("/tmp/" + Self.secret))
        var cacheFiles = 0
        CacheCheck.walk(out) { path in
            let relative = String(path.dropFirst(out.count + 1))
            // Nothing from outside OUT was read into any of them.
            let text = String(decoding: readWholeFile(path) ?? [], as: UTF8.self)
            #expect(!text.contains(Self.secretContent), "\(relative) holds the secret's content")
            #expect(!text.contains("root:x:0:0"), "\(relative) holds /etc/passwd")
            if ["manifest.json", ".lock", "index.html", ".sheet.json"].contains(relative) { return }
            // The sheet's pages are named by the source's configured name and the page number.
            if !relative.contains("/"), relative.hasPrefix("index-"), relative.hasSuffix(".html"),
               relative.dropFirst("index-".count).dropLast(".html".count).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) {
                return
            }
            let parts = relative.split(separator: "/")
            if parts.first == "archive" {
                #expect(Self.isArchiveName(parts.dropFirst().joined(separator: "/")), "unexpected file \(relative)")
                return
            }
            if parts.count == 3, parts[0] == "pages", parts[2].hasSuffix(".json"),
               parts[2].count == 69, parts[2].prefix(64).allSatisfy({ "0123456789abcdef".contains($0) }) { return }
            cacheFiles += 1
            #expect(CacheLayout.isValidRelativePath(relative), "unexpected file \(relative)")
        }
        #expect(cacheFiles == good + 2)
        let manifestText = String(decoding: readWholeFile(out + "/manifest.json") ?? [], as: UTF8.self)
        #expect(!manifestText.contains(Self.secretContent), "the secret's content is not in the manifest")
        #expect(await CacheCheck.problems(out: out).isEmpty)
    }

    /// Whether `name` (under `OUT/archive/`) is one the repository makes: `roots/<20 digits>.json`,
    /// `tables/<sha256>.groups|items|files`, `segments/<sha256>.ndjson`,
    /// `journal/<17 digits>-<hex>-<n>.ndjson`.
    static func isArchiveName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let file = parts[1]
        func hex(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy { "0123456789abcdef".contains($0) } }
        func digits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) }
        switch parts[0] {
        case "roots":
            return file.hasSuffix(".json") && file.count == 25 && digits(file.dropLast(5))
        case "tables":
            let dot = file.split(separator: ".")
            return dot.count == 2 && dot[0].count == 64 && hex(dot[0]) && ["groups", "items", "files"].contains(dot[1])
        case "segments":
            return file.hasSuffix(".ndjson") && file.count == 71 && hex(file.dropLast(7))
        case "journal":
            let pieces = file.dropLast(".ndjson".count).split(separator: "-")
            return file.hasSuffix(".ndjson") && pieces.count == 3 && digits(pieces[0]) && hex(pieces[1]) && digits(pieces[2])
        default:
            return false
        }
    }
}
