import Testing
@testable import FeedCrawlKit

@Suite struct LaunchesPageTests {
    @Test func decodesTheRealFirstPage() throws {
        let page = try LaunchesPage.decode(LaunchesFixtures.page1.bytes, page: 1)
        #expect(page.cursor == "1583556631")
        #expect(page.hasMore)
        #expect(page.errors.isEmpty)
        #expect(page.items.map(\.id) == (91...110).reversed().map(String.init))
        #expect(page.items[0] == FeedItem(source: "launches", id: "110", page: 1, title: "CRS-21",
                                          images: [FeedImage(variant: "small", url: "https://imgur.com/E7fjUBD.png")],
                                          author: "KSC LC 39A"))
        let sentinel = try #require(page.items.first { $0.id == "108" })
        #expect(sentinel.title == "Sentinel-6 Michael Freilich")
        #expect(sentinel.images.isEmpty)
        #expect(sentinel.problem == nil)
        #expect(page.items.filter { $0.problem != nil }.isEmpty)
    }

    @Test func nullElementsAndNullFields() throws {
        let page = try LaunchesPage.decode(LaunchesFixtures.oddPage.bytes, page: 2)
        #expect(page.items.count == 6)
        #expect(page.items[0].id == "90" && page.items[0].author == "CCAFS SLC 40" && page.items[0].title == "Starlink 4")
        #expect(page.items[1] == FeedItem(source: "launches", id: "page2-index1", page: 2, problem: "launch is null"))
        #expect(page.items[2] == FeedItem(source: "launches", id: "89", page: 2, title: "", author: nil, problem: nil))
        #expect(page.items[3] == FeedItem(source: "launches", id: "88", page: 2, title: "", author: "KSC LC 39A", problem: nil))
        #expect(page.items[4].id == "page2-index4")
        #expect(page.items[4].problem == "missing id")
        #expect(page.items[4].images == [FeedImage(variant: "small", url: "https://images2.imgbox.com/f0/64/7Cp4Ukp3_o.png")])
        #expect(page.items[5].problem == "launch is a string, not an object")
    }

    @Test func partialErrorsKeepDataAndNameTheNullElement() throws {
        let page = try LaunchesPage.decode(LaunchesFixtures.partialPage.bytes, page: 4)
        #expect(!page.hasMore)
        #expect(page.cursor == "1500000000")
        #expect(page.errors == [GraphQLError(message: "Launch 85 could not be loaded.", code: "INTERNAL_SERVER_ERROR",
                                             path: ["launches", "launches", "1"])])
        #expect(page.items.map(\.id) == ["86", "page4-index1"])
        #expect(page.items[1].problem == "launch is null: Launch 85 could not be loaded. [INTERNAL_SERVER_ERROR] (path launches.launches.1)")
        #expect(page.errorNotes == ["launch page4-index1: Launch 85 could not be loaded. [INTERNAL_SERVER_ERROR] (path launches.launches.1)"])
    }

    @Test func errorsWithoutDataThrowTheServerMessages() {
        let validation = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(LaunchesFixtures.validationError.bytes, page: 1)
        }
        #expect(validation?.errors.map(\.message) == [#"Cannot query field "mySite" on type "Launch". Did you mean "site"?"#])
        #expect(validation?.errors.first?.code == "GRAPHQL_VALIDATION_FAILED")
        #expect(validation?.description == #"GraphQL error: Cannot query field "mySite" on type "Launch". Did you mean "site"? [GRAPHQL_VALIDATION_FAILED]"#)

        let apq = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(LaunchesFixtures.persistedQueryNotFound.bytes, page: 1)
        }
        #expect(apq?.errors.map(\.message) == ["PersistedQueryNotFound"])

        let pastEnd = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(LaunchesFixtures.nullCursorError.bytes, page: 7)
        }
        #expect(pastEnd?.errors.map(\.message) == ["Cannot return null for non-nullable field LaunchConnection.cursor."])
        #expect(pastEnd?.errors.first?.path == ["launches", "cursor"])
    }

    @Test(arguments: [
        ("[1]", "expected a JSON object at top level, got an array"),
        ("{}", "missing data"),
        (#"{"data":null}"#, "data is null"),
        (#"{"data":{}}"#, "missing data.launches"),
        (#"{"data":{"launches":null}}"#, "data.launches is null"),
        (#"{"data":{"launches":{"hasMore":true,"cursor":"1"}}}"#, "data.launches.launches is missing"),
        (#"{"data":{"launches":{"launches":"x"}}}"#, "data.launches.launches is a string"),
    ])
    func shapeErrorsThrowWithAReason(body: String, reason: String) {
        let error = #expect(throws: FeedDecodeError.self) {
            try LaunchesPage.decode(body.bytes, page: 1)
        }
        #expect(error?.reason == "launches page: \(reason)")
    }

    @Test func malformedErrorsEntriesAreStillReported() {
        let failure = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(#"{"errors":[{"extensions":{"code":"X"}},"boom",{"message":42}]}"#.bytes, page: 1)
        }
        #expect(failure?.errors.map(\.message) == ["(no message)", "boom", "42"])
        let notArray = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(#"{"errors":{"message":"x"}}"#.bytes, page: 1)
        }
        #expect(notArray?.errors.map(\.message) == ["malformed \"errors\" (an object)"])
    }

    /// With both sizes asked for, the listing names them as aliases (`small`, `large`); a
    /// single size is the plain `missionPatch`, named as that size.
    @Test func bothVariantsAreReadFromTheirAliases() throws {
        let body = #"{"data":{"launches":{"cursor":"1","hasMore":false,"launches":[{"id":"1","site":"S","mission":{"name":"M","small":"https://i/1s.png","large":"https://i/1l.png"}},{"id":"2","mission":{"name":"N","small":null,"large":"https://i/2l.png"}},{"id":"3","mission":{"name":"O","small":"javascript:x","large":""}}]}}}"#
        let page = try LaunchesPage.decode(body.bytes, page: 1, variants: ["small", "large"])
        #expect(page.items[0].images == [FeedImage(variant: "small", url: "https://i/1s.png"), FeedImage(variant: "large", url: "https://i/1l.png")])
        #expect(page.items[1].images == [FeedImage(variant: "large", url: "https://i/2l.png")])
        #expect(page.items[2].images.count == 1)
        #expect(page.items[2].image("small")?.problem?.contains("not an http(s) URL") == true)
        #expect(page.items.allSatisfy { $0.problem == nil })
        // The order asked for is kept.
        let reversed = try LaunchesPage.decode(body.bytes, page: 1, variants: ["large", "small"])
        #expect(reversed.items[0].images.map(\.variant) == ["large", "small"])
    }

    @Test func aSingleVariantReadsThePlainMissionPatch() throws {
        let large = try LaunchesPage.decode(LaunchesFixtures.page1.bytes, page: 1, variants: ["large"])
        #expect(large.items[0].images == [FeedImage(variant: "large", url: "https://imgur.com/E7fjUBD.png")])
        let small = try LaunchesPage.decode(LaunchesFixtures.page1.bytes, page: 1)
        #expect(small.items[0].images == [FeedImage(variant: "small", url: "https://imgur.com/E7fjUBD.png")])
        // With two variants asked for, a plain missionPatch is the first of them.
        let first = try LaunchesPage.decode(LaunchesFixtures.page1.bytes, page: 1, variants: ["small", "large"])
        #expect(first.items[0].images == [FeedImage(variant: "small", url: "https://imgur.com/E7fjUBD.png")])
    }

    @Test func lenientHasMoreAndCursor() throws {
        let page = try LaunchesPage.decode(#"{"data":{"launches":{"cursor":"","hasMore":1,"launches":[]}}}"#.bytes, page: 1)
        #expect(page.hasMore)
        #expect(page.cursor == nil)
        let missing = try LaunchesPage.decode(#"{"data":{"launches":{"cursor":123,"launches":[]}}}"#.bytes, page: 1)
        #expect(!missing.hasMore)
        #expect(missing.cursor == "123")
    }
}
