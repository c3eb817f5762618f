import Testing
@testable import FeedCrawlKit

@Suite struct LaunchDetailsTests {
    @Test func capturedPartialSelection() throws {
        let detail = try LaunchDetailResponse.decode(LaunchesFixtures.detailPartial.bytes)
        #expect(detail == LaunchDetail(id: "83", site: "CCAFS SLC 40"))
    }

    @Test func fullAnswerWithNullPatch() throws {
        let detail = try #require(try LaunchDetailResponse.decode(LaunchesFixtures.detailFull.bytes))
        #expect(detail.id == "108")
        #expect(detail.rocketName == "Falcon 9")
        #expect(detail.rocketType == "FT")
        #expect(detail.errors.isEmpty)
    }

    @Test func unknownIDIsNil() throws {
        #expect(try LaunchDetailResponse.decode(LaunchesFixtures.detailUnknownID.bytes) == nil)
    }

    @Test func errorsWithNullLaunchThrow() {
        let failure = #expect(throws: GraphQLFailure.self) {
            try LaunchDetailResponse.decode(#"{"errors":[{"message":"Launch not found"}],"data":{"launch":null}}"#.bytes)
        }
        #expect(failure?.errors.map(\.message) == ["Launch not found"])
    }

    @Test func errorsAlongsideALaunchAreKept() throws {
        let body = #"{"errors":[{"message":"rocket failed","path":["launch","rocket"]}],"data":{"launch":{"id":7,"rocket":null}}}"#
        let detail = try #require(try LaunchDetailResponse.decode(body.bytes))
        #expect(detail.id == "7")
        #expect(detail.rocketName == nil)
        #expect(detail.errors.map(\.message) == ["rocket failed"])
    }

    @Test(arguments: [
        (#"{"data":{}}"#, "missing data.launch"),
        (#"{"data":{"launch":{"site":"x"}}}"#, "launch has no usable id"),
        (#"{"data":{"launch":[1]}}"#, "data.launch is an array, not an object"),
        ("{}", "missing data"),
    ])
    func shapeErrors(body: String, reason: String) {
        let error = #expect(throws: FeedDecodeError.self) {
            try LaunchDetailResponse.decode(body.bytes)
        }
        #expect(error?.reason == "launch details: \(reason)")
    }
}
