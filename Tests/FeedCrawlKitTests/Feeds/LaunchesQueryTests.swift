import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite struct LaunchesQueryTests {
    static let tutorialList = "query LaunchList($cursor: String) { launches(after: $cursor) { hasMore cursor launches { id site mission { name missionPatch(size: SMALL) } } } }"
    /// The tutorial's `LaunchDetails` without the fields feedcrawl does not keep (the mission,
    /// listed with the page, and `isBooked`, which servers may guard).
    static let tutorialDetails = "query LaunchDetails($launchId: ID!) { launch(id: $launchId) { id site rocket { name type } } }"

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func firstPageUsesTheExactTutorialQuery() {
        #expect(text(LaunchesQuery.listBody(cursor: nil, pageSize: nil))
            == #"{"operationName":"LaunchList","query":"\#(Self.tutorialList)","variables":{}}"#)
    }

    @Test func laterPagesSendTheCursor() {
        #expect(text(LaunchesQuery.listBody(cursor: "1583556631", pageSize: nil))
            == #"{"operationName":"LaunchList","query":"\#(Self.tutorialList)","variables":{"cursor":"1583556631"}}"#)
    }

    @Test func pageSizeIsDeclaredAndSentOnlyWhenSet() {
        let body = text(LaunchesQuery.listBody(cursor: "c", pageSize: 5))
        #expect(body == #"{"operationName":"LaunchList","query":"query LaunchList($cursor: String, $pageSize: Int) { launches(after: $cursor, pageSize: $pageSize) { hasMore cursor launches { id site mission { name missionPatch(size: SMALL) } } } }","variables":{"cursor":"c","pageSize":5}}"#)
        for bad in [nil, 0, -1] as [Int?] {
            let plain = text(LaunchesQuery.listBody(cursor: nil, pageSize: bad))
            #expect(!plain.contains("pageSize"), "pageSize \(String(describing: bad))")
            #expect(!plain.contains("null"))
        }
    }

    @Test func oneVariantIsTheTutorialsDocumentWithThatSize() {
        #expect(LaunchesQuery.listDocument(variants: [.small]) == Self.tutorialList)
        #expect(LaunchesQuery.listDocument() == Self.tutorialList)
        #expect(LaunchesQuery.listDocument(variants: [.large])
            == Self.tutorialList.replacing("missionPatch(size: SMALL)", with: "missionPatch(size: LARGE)"))
        let body = text(LaunchesQuery.listBody(cursor: nil, variants: [.large]))
        #expect(body.contains("missionPatch(size: LARGE)"))
        #expect(!body.contains("SMALL"))
        // No variant: the default.
        #expect(LaunchesQuery.listBody(cursor: nil, variants: []) == LaunchesQuery.listBody(cursor: nil))
    }

    @Test func twoVariantsAreAskedAsAliases() {
        #expect(LaunchesQuery.listDocument(variants: [.small, .large])
            == "query LaunchList($cursor: String) { launches(after: $cursor) { hasMore cursor launches { id site mission { name small: missionPatch(size: SMALL) large: missionPatch(size: LARGE) } } } }")
        #expect(LaunchesQuery.listDocument(variants: [.large, .small], withPageSize: true)
            == "query LaunchList($cursor: String, $pageSize: Int) { launches(after: $cursor, pageSize: $pageSize) { hasMore cursor launches { id site mission { name large: missionPatch(size: LARGE) small: missionPatch(size: SMALL) } } } }")
        let body = text(LaunchesQuery.listBody(cursor: "c", pageSize: 5, variants: [.small, .large]))
        #expect(body.contains(#""variables":{"cursor":"c","pageSize":5}"#))
        #expect(body.contains("small: missionPatch(size: SMALL) large: missionPatch(size: LARGE)"))
    }

    @Test func detailsBodyUsesTheTutorialQuery() {
        #expect(text(LaunchesQuery.detailsBody(launchId: "83"))
            == #"{"operationName":"LaunchDetails","query":"\#(Self.tutorialDetails)","variables":{"launchId":"83"}}"#)
    }

    @Test func untrustedCursorIsEscapedAndTheBodyIsValidJSON() throws {
        let cursor = "a\"b\\c\n\u{1}é"
        let bytes = LaunchesQuery.listBody(cursor: cursor, pageSize: 3)
        struct Body: Decodable {
            struct Vars: Decodable { var cursor: String; var pageSize: Int }
            var operationName: String
            var query: String
            var variables: Vars
        }
        let decoded = try JSONDecoder().decode(Body.self, from: Data(bytes))
        #expect(decoded.variables.cursor == cursor)
        #expect(decoded.variables.pageSize == 3)
        #expect(decoded.operationName == "LaunchList")
        #expect(text(bytes).contains(#""cursor":"a\"b\\c\n\u0001é""#))
    }
}
