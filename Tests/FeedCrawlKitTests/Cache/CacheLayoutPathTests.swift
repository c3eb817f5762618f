import Testing
@testable import FeedCrawlKit
import FeedCrawlSupport

@Suite("CacheLayout relative path check")
struct CacheLayoutPathTests {
    /// The shape rule written plainly, to check the byte-level implementation against.
    static func reference(_ relative: String) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "cache" else { return false }
        let name = parts[2].split(separator: ".", omittingEmptySubsequences: false)
        guard name.count == 2, name[0].utf8.count == 64,
              name[0].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let format = ImageFormat(fileExtension: String(name[1])), format.fileExtension == name[1]
        else { return false }
        return name[0].prefix(2) == parts[1]
    }

    @Test func agreesWithTheShapeRule() {
        let key = SHA256.hex("https://cdn.example/x.jpg")
        let good = "cache/\(key.prefix(2))/\(key)"
        var cases = ["", "cache/", "../manifest.json", good, good + ".", good + "..jpg", good + ".jpg/x"]
        for ext in ["jpg", "png", "gif", "webp", "jpeg", "JPG", "exe", "j/g", "jp.g", "p"] {
            cases += [good + "." + ext, "/" + good + "." + ext, "cache/zz/\(key)." + ext, "cachx/\(key.prefix(2))/\(key)." + ext,
                      "cache/\(key.prefix(2))/\(key.uppercased())." + ext, "cache/\(key.prefix(2))/\(key.dropLast())." + ext,
                      "cache/\(key.prefix(2))/\(key)0." + ext, "cache/\(key.prefix(2))//\(key)." + ext,
                      "cache/\(key.prefix(2))/../\(key)." + ext, "cache/\(key.prefix(2))/\(key)." + ext + "\u{0}"]
        }
        for relative in cases {
            #expect(CacheLayout.isValidRelativePath(relative) == Self.reference(relative), "\(relative)")
        }
        #expect(CacheLayout.isValidRelativePath(good + ".jpg"))
    }
}
