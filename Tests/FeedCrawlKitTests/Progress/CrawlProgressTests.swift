import FoundationEssentials
import Testing
@testable import FeedCrawlKit

@Suite("Crawl progress counters and text")
struct CrawlProgressTests {
    static func downloaded(_ bytes: Int64) -> ImageRecord.Outcome {
        var outcome = ImageRecord.Outcome(status: .downloaded)
        outcome.bytes = bytes
        return outcome
    }

    @Test func countsPagesItemsAndBytesPerSource() {
        let start = ContinuousClock.now
        let progress = CrawlProgress(sources: [("pixabay", 5), ("launches", 3)], started: start)
        progress.record(.pageFetched(source: "pixabay", page: 1, items: 20))
        progress.record(.pageFetched(source: "pixabay", page: 2, items: 20))
        progress.record(.pageFetched(source: "launches", page: 1, items: 10))
        for _ in 0..<15 { progress.record(.itemFinished(source: "pixabay", status: .downloaded)) }
        progress.record(.itemFinished(source: "pixabay", status: .failed))
        progress.record(.itemFinished(source: "launches", status: .noImage))
        progress.record(.imageFetched(url: "u", outcome: Self.downloaded(1000), seconds: 0.1))
        progress.record(.imageFetched(url: "v", outcome: ImageRecord.Outcome(status: .failed, error: "HTTP 404"), seconds: 0.1))
        progress.record(.retrying(url: "u", attempt: 1, delay: 0.1, reason: "HTTP 503"))
        progress.record(.sourceFailed(source: "launches", message: "nope"))

        let snapshot = progress.snapshot(now: start + .seconds(2))
        #expect(snapshot.sources.map(\.name) == ["pixabay", "launches"])
        #expect(snapshot.sources[0].pagesFetched == 2)
        #expect(snapshot.sources[0].pagesPlanned == 5)
        #expect(snapshot.sources[0].listed == 40)
        #expect(snapshot.sources[1].failed)
        #expect(snapshot.listed == 50)
        #expect(snapshot.done == 16)        // 15 downloaded + 1 no-image
        #expect(snapshot.problems == 1)
        #expect(snapshot.queued == 50 - 17)
        #expect(snapshot.bytes == 1000)     // failed transfers add nothing
        #expect(snapshot.transfers == 2)
        #expect(snapshot.retries == 1)
        #expect(snapshot.elapsed == 2)
    }

    @Test func unknownSourceIsAppended() {
        let progress = CrawlProgress(sources: [("a", 1)])
        progress.record(.itemFinished(source: "b", status: .fresh))
        #expect(progress.snapshot().sources.map(\.name) == ["a", "b"])
        #expect(progress.snapshot().sources[1].counts[.fresh] == 1)
    }

    @Test func concurrentRecordingLosesNothing() async {
        let progress = CrawlProgress(sources: [("s", 1)])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 {
                        progress.record(.itemFinished(source: "s", status: .downloaded))
                        progress.record(.imageFetched(url: "", outcome: Self.downloaded(3), seconds: 0))
                    }
                }
            }
        }
        let snapshot = progress.snapshot()
        #expect(snapshot.counts[.downloaded] == 8000)
        #expect(snapshot.bytes == 24000)
    }

    @Test func liveLinesFitTheWidthAndShowEveryFigure() {
        var snapshot = ProgressSnapshot(sources: [
            .init(name: "pixabay", pagesPlanned: 5), .init(name: "launches", pagesPlanned: 0),
        ])
        snapshot.sources[0].pagesFetched = 3
        snapshot.sources[0].listed = 300
        snapshot.sources[0].counts = [.downloaded: 280, .failed: 2]
        snapshot.sources[1].pagesFetched = 2
        snapshot.bytes = 1536 * 1024
        snapshot.elapsed = 65.7
        let lines = ProgressText.lines(snapshot, bytesPerSecond: 512 * 1024, width: 200)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("pixabay "))
        #expect(lines[0].contains("page 3/5"))
        #expect(lines[0].contains("300 listed"))
        #expect(lines[0].contains("280 done"))
        #expect(lines[0].contains("2 failed"))
        #expect(lines[1].contains("page 2") && !lines[1].contains("page 2/"))
        #expect(lines[2] == "items 280 done · 18 queued · 2 failed │ 1.5 MiB │ 512 KiB/s │ 1:05")

        let narrow = ProgressText.lines(snapshot, bytesPerSecond: nil, width: 50)
        #expect(narrow.allSatisfy { $0.count <= 49 })
        #expect(narrow.count == 4)
        #expect(narrow[3] == "1.5 MiB │ -- B/s │ 1:05")
        #expect(!narrow.joined().contains("\u{1B}"))
    }

    /// A narrow terminal drops whole fields, never cuts a number; a long name is shortened.
    @Test func narrowLinesKeepWholeFields() {
        var snapshot = ProgressSnapshot(sources: [
            .init(name: "pixabay", pagesPlanned: 120), .init(name: "a-very-long-source-name-indeed", pagesPlanned: 3),
        ])
        snapshot.sources[0].pagesFetched = 117
        snapshot.sources[0].listed = 123_456
        snapshot.sources[0].counts = [.downloaded: 98_765, .failed: 4_321]
        snapshot.sources[1].listed = 77_777
        snapshot.bytes = 987_654_321
        snapshot.elapsed = 3_725
        let figures = ["117/120", "0/3", "123456", "77777", "98765", "4321", "0", "\(snapshot.queued)", "1:02:05"]
        for width in [20, 30, 40, 50, 60, 80, 100] {
            let lines = ProgressText.lines(snapshot, bytesPerSecond: 12_345_678, width: width)
            for line in lines {
                #expect(line.count <= width - 1, "width \(width): \(line)")
                // Every run of digits on a line is a whole figure of the snapshot.
                let runs = line.split { !$0.isNumber && $0 != "/" && $0 != "." && $0 != ":" }
                for run in runs where run.first!.isNumber {
                    #expect(figures.contains(String(run)) || line.contains("B"),
                            "width \(width): \(run) cut in \(line)")
                }
            }
            #expect(lines.contains { $0.hasPrefix("items 98765 done") }, "width \(width): \(lines)")
            #expect(lines[0].contains("98765 done"), "width \(width): \(lines[0])")
            if width >= 40 { #expect(lines[0].contains("4321 failed"), "width \(width): \(lines[0])") }
        }
        let narrow = ProgressText.lines(snapshot, bytesPerSecond: nil, width: 40)
        #expect(!narrow[1].contains("a-very-long-source-name-indeed"))
        #expect(narrow[1].hasPrefix("a-very-long"))
    }

    @Test func logLineSummarisesOnOneLine() {
        var snapshot = ProgressSnapshot(sources: [.init(name: "pixabay", pagesPlanned: 5)])
        snapshot.sources[0].pagesFetched = 1
        snapshot.sources[0].listed = 10
        snapshot.sources[0].counts = [.downloaded: 4, .rejected: 1]
        snapshot.elapsed = 3
        let line = ProgressText.logLine(snapshot, bytesPerSecond: nil)
        #expect(line == "pixabay 1/5 pages; items 4 done, 5 queued, 1 failed; 0 B; 0:03 elapsed")
    }

    @Test func elapsedAndRateFormats() {
        #expect(ProgressText.elapsed(0) == "0:00")
        #expect(ProgressText.elapsed(59.9) == "0:59")
        #expect(ProgressText.elapsed(3600 + 62) == "1:01:02")
        #expect(ProgressText.rate(2048) == "2 KiB/s")
        #expect(ProgressText.rate(.nan) == "-- B/s")
    }

    @Test func rateMeterUsesTheWindow() {
        var meter = RateMeter(window: 2)
        #expect(meter.bytesPerSecond == nil)
        meter.add(time: 0, bytes: 0)
        meter.add(time: 0.1, bytes: 100)
        #expect(meter.bytesPerSecond == nil)  // samples too close together
        meter.add(time: 1, bytes: 1000)
        #expect(meter.bytesPerSecond == 1000)
        // Ten seconds of nothing, then a burst: the old samples fall out of the window.
        meter.add(time: 10, bytes: 1000)
        meter.add(time: 11, bytes: 3000)
        meter.add(time: 12, bytes: 5000)
        #expect(meter.bytesPerSecond == 2000)
    }
}
