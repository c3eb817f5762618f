/// A most number of items, as a count or as a share of a whole: `--max-delete` (of the
/// archive's items) and `--max-failures` (of the run's items) take one as `N` or `P%`.
public enum ItemLimit: Sendable, Equatable {
    /// Items.
    case items(Int)
    /// A percentage (0–100) of the whole.
    case percent(Double)

    /// Whether `count` items of `total` are more than the limit allows.
    public func isExceeded(by count: Int, of total: Int) -> Bool {
        switch self {
        case .items(let most): count > most
        case .percent(let most): Self.share(count, of: total) > most
        }
    }

    /// `count` as a percentage of `total` (0 when `total` is 0).
    static func share(_ count: Int, of total: Int) -> Double {
        total > 0 ? Double(count) * 100 / Double(total) : 0
    }

    /// The limit as the option takes it: `500` or `10%`.
    public var described: String {
        switch self {
        case .items(let most): String(most)
        case .percent(let most): Self.percent(most)
        }
    }

    /// `value` as a percentage rounded to a tenth: `12%`, `0.5%`.
    static func percent(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded))%" : "\(rounded)%"
    }
}
