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
                                          imageURL: "https://imgur.com/E7fjUBD.png", author: "KSC LC 39A"))
        let sentinel = try #require(page.items.first { $0.id == "108" })
        #expect(sentinel.title == "Sentinel-6 Michael Freilich")
        #expect(sentinel.imageURL == nil)
        #expect(sentinel.problem == nil)
        #expect(page.items.filter { $0.problem != nil }.isEmpty)
    }

    @Test func nullElementsAndNullFields() throws {
        let page = try LaunchesPage.decode(LaunchesFixtures.oddPage.bytes, page: 2)
        #expect(page.items.count == 6)
        #expect(page.items[0].id == "90" && page.items[0].author == "CCAFS SLC 40" && page.items[0].title == "Starlink 4")
        #expect(page.items[1] == FeedItem(source: "launches", id: "page2-index1", page: 2, problem: "launch is null"))
        #expect(page.items[2] == FeedItem(source: "launches", id: "89", page: 2, title: "", imageURL: nil, author: nil, problem: nil))
        #expect(page.items[3] == FeedItem(source: "launches", id: "88", page: 2, title: "", imageURL: nil, author: "KSC LC 39A", problem: nil))
        #expect(page.items[4].id == "page2-index4")
        #expect(page.items[4].problem == "missing id")
        #expect(page.items[4].imageURL == "https://images2.imgbox.com/f0/64/7Cp4Ukp3_o.png")
        #expect(page.items[5].problem == "launch is a string, not an object")
    }

    @Test func partialErrorsKeepDataAndNameTheNullElement() throws {
        let page = try LaunchesPage.decode(LaunchesFixtures.partialPage.bytes, page: 4)
        #expect(!page.hasMore)
        #expect(page.cursor == "1500000000")
        #expect(page.errors == [GraphQLError(message: "Launch 85 could not be loaded.", code: "INTERNAL_SERVER_ERROR",
                                             path: ["launches", "launches", "1"])])
        #expect(page.items.map(\.id) == ["86", "page4-index1"])
        #expect(page.items[1].problem == "launch is null: Launch 85 could not be loaded.")
    }

    @Test func errorsWithoutDataThrowTheServerMessages() {
        let validation = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(LaunchesFixtures.validationError.bytes, page: 1)
        }
        #expect(validation?.messages == [#"Cannot query field "mySite" on type "Launch". Did you mean "site"?"#])
        #expect(validation?.errors.first?.code == "GRAPHQL_VALIDATION_FAILED")
        #expect(validation?.description == #"GraphQL error: Cannot query field "mySite" on type "Launch". Did you mean "site"? [GRAPHQL_VALIDATION_FAILED]"#)

        let apq = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(LaunchesFixtures.persistedQueryNotFound.bytes, page: 1)
        }
        #expect(apq?.messages == ["PersistedQueryNotFound"])

        let pastEnd = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(LaunchesFixtures.nullCursorError.bytes, page: 7)
        }
        #expect(pastEnd?.messages == ["Cannot return null for non-nullable field LaunchConnection.cursor."])
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
        #expect(failure?.messages == ["(no message)", "boom", "42"])
        let notArray = #expect(throws: GraphQLFailure.self) {
            try LaunchesPage.decode(#"{"errors":{"message":"x"}}"#.bytes, page: 1)
        }
        #expect(notArray?.messages == ["malformed \"errors\" (an object)"])
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
