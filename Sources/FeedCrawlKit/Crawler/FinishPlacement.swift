import Glibc

/// Where the image pipeline finishes a download (fsync, close, validate, rename, record):
/// right on the HTTP engine's thread, or on the worker threads (internal).
///
/// Finishing inline saves two thread hand-offs per image (about 12% of the CPU time of a
/// 20,000-image crawl), but an `fsync` that blocks would stall every transfer. So the choice
/// follows measurement: downloads are finished on the workers until the last fsyncs (an
/// exponential average) take under 100 µs, as on tmpfs or a disk with a fast write cache, and
/// go back to the workers when the average passes 400 µs.
final class FinishPlacement: @unchecked Sendable {
    /// Average fsync time (ns) under which finishing moves inline, and over which it moves back.
    static let inlineBelow: Double = 100_000
    static let workersAbove: Double = 400_000
    /// Samples before the first move inline.
    static let warmUp = 8

    private let lock = Lock()
    private var average: Double = 0
    private var samples = 0
    private var inline = false

    /// Whether the next download should be finished on the engine's thread.
    var finishesInline: Bool { lock.withLock { inline } }

    /// Records how long one file's fsync and close took.
    func record(nanoseconds: UInt64) {
        lock.withLock {
            let value = Double(nanoseconds)
            average = samples == 0 ? value : average * 0.875 + value * 0.125
            samples += 1
            if inline {
                if average > Self.workersAbove { inline = false }
            } else if samples >= Self.warmUp && average < Self.inlineBelow {
                inline = true
            }
        }
    }

    /// A monotonic clock reading in nanoseconds, for timing an fsync.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
