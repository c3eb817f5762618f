import Testing
@testable import FeedCrawlStorage

@Suite("ObjectLease")
struct ObjectLeaseTests {
    let rule = ObjectLease()

    @Test func noLeaseIsCreatedOnlyIfStillAbsent() {
        #expect(rule.step(.absent) == .create)
    }

    @Test func aLeaseRenewedWithinTheTTLIsHeldAndSaysWhenItExpires() {
        #expect(rule.step(.present(etag: "\"a\"", lastModified: 1000, storeNow: 1000)) == .held(expiresIn: 60))
        #expect(rule.step(.present(etag: "\"a\"", lastModified: 1000, storeNow: 1059)) == .held(expiresIn: 1))
    }

    @Test func aLeaseUnrenewedForTheTTLIsTakenOverWithItsETag() {
        #expect(rule.step(.present(etag: "\"a\"", lastModified: 1000, storeNow: 1060)) == .takeOver(etag: "\"a\"", idle: 60))
        #expect(rule.step(.present(etag: "\"b\"", lastModified: 1000, storeNow: 90_000)) == .takeOver(etag: "\"b\"", idle: 89_000))
    }

    @Test func expiryIsJudgedOnTheStoresClockAlone() {
        // A store clock behind or ahead of this machine's changes nothing: only the difference
        // between its own two times counts.
        let behind = rule.step(.present(etag: "e", lastModified: 10, storeNow: 40))
        let ahead = rule.step(.present(etag: "e", lastModified: 4_000_000_010, storeNow: 4_000_000_040))
        #expect(behind == ahead)
    }

    @Test func aHolderRenewsEveryIntervalAndGivesUpBeforeAnotherRunMayTakeOver() {
        var holding = ObjectLease.Holding(etag: "\"1\"", at: 100)
        #expect(!holding.isDue(rule, now: 119.9))
        #expect(holding.isDue(rule, now: 120))
        holding.renewed(etag: "\"2\"", at: 120)
        #expect(holding.etag == "\"2\"")
        #expect(!holding.isDue(rule, now: 139))
        // Renewals failing from 120 on: the holder stops at 165, 15 s before the lease can be
        // taken over at 180 (120 + ttl).
        #expect(!holding.mustGiveUp(rule, now: 164.9))
        #expect(holding.mustGiveUp(rule, now: 165))
        #expect(rule.giveUpAfter < rule.ttl)
    }

    @Test func httpDatesAreReadInEveryFormHTTPAllows() {
        #expect(ObjectLease.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(ObjectLease.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(ObjectLease.httpDate("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(ObjectLease.httpDate("not a date") == nil)
    }
}
