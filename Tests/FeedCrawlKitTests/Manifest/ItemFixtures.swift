import FoundationEssentials
@testable import FeedCrawlKit

/// A deterministic generator (SplitMix64), so a failing case names its seed and reproduces.
struct TestRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }

    /// True with probability `p`.
    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// One element of `list`.
    mutating func pick<T>(_ list: [T]) -> T { list[int(0..<list.count)] }
}

/// Manifest items for the manifest, journal and scanner tests: a few fixed ones and generated
/// ones that hold every field, with text that needs escaping.
enum ItemFixtures {
    /// 2024-05-01T12:00:00Z
    static let may1 = Date(timeIntervalSince1970: 1_714_564_800)

    /// Text that needs every kind of escaping (quotes, backslashes, controls, line separators,
    /// multi-byte characters, a terminal escape).
    static let nasty = "q\"\\/ \u{1}\u{1f}\u{7f}\n\t\r\u{8}\u{c} \u{2028}é😀 ../../etc \u{1b}[31m"

    /// Pieces random strings are made of.
    static let pieces = [
        "a", "bcdefgh", "\"", "\\", "/", "\n", "\u{0}", "\u{1f}", " ", "\u{7f}", "é", "e\u{301}", "😀", "\u{2028}",
        "\u{FEFF}", "0123456789abcdef", "\u{8}\u{c}\r\t", "~", "\\u0041", "null", "\",\"id\":\"x", "日本語",
    ]

    /// A string of up to `maxPieces` random pieces (possibly empty).
    static func string(_ random: inout TestRandom, maxPieces: Int = 8) -> String {
        var text = ""
        for _ in 0..<random.int(0..<(maxPieces + 1)) { text += random.pick(pieces) }
        return text
    }

    /// A whole-second date from 1583 to 9999: the range in which the manifest's dates are
    /// written and read back exactly.
    static func date(_ random: inout TestRandom) -> Date {
        let seconds: Int64 = random.chance(0.2)
            ? random.pick([-12_212_553_600, 253_402_300_799, 0, -1, 951_782_400, 1_709_251_199])
            : Int64.random(in: -12_212_553_600...253_402_300_799, using: &random)
        return Date(timeIntervalSince1970: Double(seconds))
    }

    static func optional<T>(_ random: inout TestRandom, _ make: (inout TestRandom) -> T) -> T? {
        random.chance(0.5) ? make(&random) : nil
    }

    static func integer(_ random: inout TestRandom) -> Int64 {
        random.chance(0.2) ? random.pick([0, -1, Int64.min, Int64.max, 1 << 53, -(1 << 53) - 1])
            : Int64.random(in: -1_000_000...1_000_000_000, using: &random)
    }

    /// An image record with each optional field present or absent at random.
    static func image(_ random: inout TestRandom, variant: String) -> ImageRecord {
        ImageRecord(
            variant: variant, url: random.chance(0.7) ? "https://cdn.example/\(random.int(0..<1000)).jpg" : string(&random),
            status: random.pick(ItemStatus.allCases),
            file: optional(&random) { string(&$0) },
            bytes: optional(&random) { integer(&$0) },
            sha256: optional(&random) { string(&$0) },
            contentType: optional(&random) { string(&$0, maxPieces: 2) },
            width: optional(&random) { Int(integer(&$0)) },
            height: optional(&random) { Int(integer(&$0)) },
            etag: optional(&random) { string(&$0) },
            lastModified: optional(&random) { string(&$0) },
            fetchedAt: optional(&random) { date(&$0) },
            error: optional(&random) { string(&$0) })
    }

    /// An item with random text, dates, optional fields present or absent and 0 to 3 images.
    static func item(_ random: inout TestRandom) -> ManifestItem {
        let variants = ["preview", "webformat", "large", "small", "image", string(&random, maxPieces: 2)]
        var images: [ImageRecord] = []
        for _ in 0..<random.int(0..<4) { images.append(image(&random, variant: random.pick(variants))) }
        let details: LaunchDetails? = random.chance(0.3)
            ? LaunchDetails(
                rocketName: optional(&random) { string(&$0) }, rocketType: optional(&random) { string(&$0) },
                site: optional(&random) { string(&$0) }, error: optional(&random) { string(&$0) })
            : nil
        return ManifestItem(
            source: random.chance(0.6) ? random.pick(["pixabay", "launches", "array"]) : string(&random, maxPieces: 3),
            id: random.chance(0.5) ? String(random.int(0..<1_000_000)) : string(&random, maxPieces: 3),
            page: random.chance(0.1) ? random.pick([Int.min, Int.max, 0, -1]) : random.int(1..<500),
            title: string(&random),
            author: optional(&random) { string(&$0) },
            pageURL: optional(&random) { string(&$0) },
            lastSeen: optional(&random) { date(&$0) },
            error: random.chance(0.1) ? string(&random) : nil,
            details: details,
            images: images)
    }

    /// A launch with details and two images, every field set.
    static let full = ManifestItem(
        source: "launches", id: "109", page: 2, title: "Starlink-15 (v1.0) " + nasty, author: "SpaceX",
        lastSeen: may1.addingTimeInterval(60),
        details: LaunchDetails(rocketName: "Falcon 9", rocketType: "FT", site: "KSC LC 39A", error: "details: " + nasty),
        images: [
            ImageRecord(
                variant: "small", url: "https://images2.imgbox.com/9a/96/nLppz9HW_o.png?a=1&b=/x", status: .revalidated,
                file: file(1, ext: "png"), bytes: 12_345, sha256: String(repeating: "a", count: 64),
                contentType: "image/png", width: 150, height: 150, etag: "W/\"abc\"",
                lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", fetchedAt: may1),
            ImageRecord(
                variant: "large", url: "https://images2.imgbox.com/x/large.png", status: .failed,
                error: "HTTP 404: " + nasty),
        ])

    /// A simple item of `source` and `id` with one `preview` image of `status` (none for
    /// `no-image`).
    static func item(
        _ source: String, _ id: String, page: Int = 1, status: ItemStatus = .downloaded, title: String = "t",
        lastSeen: Date? = nil
    ) -> ManifestItem {
        var item = ManifestItem(source: source, id: id, page: page, title: title, lastSeen: lastSeen)
        if status != .noImage {
            item.images = [ImageRecord(
                variant: "preview", url: "https://cdn.example/\(source)/\(id).jpg", status: status,
                file: status.hasImage ? file(Int(id) ?? 0) : nil, bytes: status.hasImage ? 100 : nil)]
        }
        return item
    }

    /// A cache path of the layout's shape whose key starts with the digits of `n` (0...9999).
    static func file(_ n: Int, ext: String = "jpg") -> String {
        let key = String(format4(n)) + String(repeating: "0", count: 60)
        return "cache/\(key.prefix(2))/\(key).\(ext)"
    }

    private static func format4(_ n: Int) -> String {
        let digits = String(n % 10_000)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
