import Testing
@testable import FeedCrawlKit

/// `--pixabay-images`, `--launch-images` and a source's `"images"` go through `ImageVariants.parse`.
@Suite("ImageVariants.parse")
struct ImageVariantsTests {
    @Test func orderIsKeptAndRepeatsDropped() throws {
        #expect(try ImageVariants.parse(["large", "preview", "large", "webformat", "preview"], as: PixabayVariant.self)
            == [.large, .preview, .webformat])
        #expect(try ImageVariants.parse(commaSeparated: "large,small", as: LaunchesQuery.PatchSize.self) == [.large, .small])
        #expect(try ImageVariants.parse(commaSeparated: " Preview ,,WEBFORMAT, ", as: PixabayVariant.self) == [.preview, .webformat])
        #expect(try ImageVariants.parse(["image"], among: ArraySourceConfiguration.variantNames) == ["image"])
    }

    @Test func unknownNamesAreRejectedNamingTheValidOnes() {
        let pixabay = #expect(throws: ImageVariants.Invalid.self) {
            try ImageVariants.parse(commaSeparated: "preview,thumb", as: PixabayVariant.self)
        }
        #expect(pixabay?.description == "unknown image variant 'thumb' (valid: preview, webformat, large)")
        let launches = #expect(throws: ImageVariants.Invalid.self) {
            try ImageVariants.parse(["medium"], as: LaunchesQuery.PatchSize.self)
        }
        #expect(launches?.description == "unknown image variant 'medium' (valid: small, large)")
        // Terminal control characters in the name are not echoed; long names are clipped.
        let hostile = #expect(throws: ImageVariants.Invalid.self) {
            try ImageVariants.parse(["\u{1B}[2J" + String(repeating: "x", count: 100)], as: PixabayVariant.self)
        }
        #expect(hostile?.description.contains("\u{1B}") == false)
        #expect((hostile?.description.count ?? 999) < 120)
        let empty = #expect(throws: ImageVariants.Invalid.self) { try ImageVariants.parse([], as: PixabayVariant.self) }
        #expect(empty?.description == "no image variant named (valid: preview, webformat, large)")
        #expect(throws: ImageVariants.Invalid.self) { try ImageVariants.parse(commaSeparated: ",", as: LaunchesQuery.PatchSize.self) }
    }
}
