import FeedCrawlKit
import Foundation
import Testing

/// The times of a run record as the manifest holds them, with milliseconds: read back and
/// written again, they are the same text and the same date. `feedcrawl manifest merge` relies on
/// it: it takes a shard's part for a new one when the part's start time (read from the part) is
/// after the one its last complete merge recorded (read from the merged manifest).
@Suite("run record times")
struct RunRecordTimeTests {
    @Test func startTimesSurviveTheManifestRoundTripExactly() throws {
        // 2026-12-01T20:54:39Z plus each millisecond of a second, plus a fraction of one.
        let base = 1_796_158_479.0
        var noise: UInt64 = 0x9E37_79B9_7F4A_7C15
        for ms in 0..<1000 {
            noise = noise &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let started = Date(timeIntervalSince1970: base + Double(ms) / 1000 + Double(noise >> 11) / Double(1 << 53) / 1000)
            var record = RunRecord(startedAt: started, finishedAt: started)
            record.merge = .init(shards: 2, complete: true, parts: [started, nil], reference: [started, nil], problems: nil)
            let manifest = Manifest(generatedAt: Date(timeIntervalSince1970: base), run: record)

            let written = ManifestStore.encode(manifest)
            let read = try ManifestStore.decode(written)
            let rewritten = ManifestStore.encode(read)
            #expect(rewritten == written, "\(String(decoding: written, as: UTF8.self).suffix(200))")
            let readAgain = try ManifestStore.decode(rewritten)
            let time = try #require(read.run?.startedAt)
            #expect(readAgain.run?.startedAt == time)
            #expect(readAgain.run?.merge?.reference?.first == time)
            #expect(readAgain.run?.merge?.parts.first == time)
            // Rounded to the nearest millisecond.
            #expect(abs(time.timeIntervalSince(started)) <= 0.000_501)
        }
    }
}
