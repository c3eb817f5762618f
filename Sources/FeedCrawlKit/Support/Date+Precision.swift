import FoundationEssentials

extension Date {
    /// This date rounded down to a whole second, as the manifest's item dates are written.
    var wholeSeconds: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }

    /// This date rounded down to a whole millisecond, as a run record writes it exactly: a run
    /// starts at such a time, so the second its record names is the second its items' `lastSeen`
    /// names (rounding to the nearest millisecond could carry .9996 into the next second).
    var wholeMilliseconds: Date { Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded(.down) / 1000) }
}
