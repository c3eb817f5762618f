/// Download rate over a sliding window: feed it (time, total bytes) samples, ask for bytes per
/// second over the last `window` seconds. Pure state; the caller supplies the clock.
public struct RateMeter: Sendable {
    /// Width of the window in seconds; default 3.
    public var window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    /// Creates an empty meter with a `window`-second window (default 3).
    public init(window: Double = 3) {
        self.window = window
    }

    /// Adds a sample: at `time` seconds, `bytes` had been downloaded in total.
    public mutating func add(time: Double, bytes: Int64) {
        samples.append((time, bytes))
        // Keep one sample at or before the window's start so the rate spans the whole window.
        while samples.count > 2, samples[1].time <= time - window { samples.removeFirst() }
    }

    /// Bytes per second over the window; nil until two samples at least 0.2 s apart exist.
    public var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.2 else { return nil }
        return Double(max(0, last.bytes - first.bytes)) / (last.time - first.time)
    }
}
