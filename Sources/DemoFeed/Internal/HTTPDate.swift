import Glibc

/// IMF-fixdate formatting ("Sun, 06 Nov 1994 08:49:37 GMT"), without Foundation (parsing:
/// `ObjectLease.httpDate`).
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Current time as unix seconds.
    static func now() -> Int { Int(time(nil)) }

    /// Formats unix seconds as an IMF-fixdate.
    static func format(_ unixSeconds: Int) -> String {
        var t = time_t(unixSeconds)
        var tmv = tm()
        gmtime_r(&t, &tmv)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let wd = days[Int(tmv.tm_wday) % 7]
        let mon = months[Int(tmv.tm_mon) % 12]
        return "\(wd), \(two(tmv.tm_mday)) \(mon) \(tmv.tm_year + 1900) "
            + "\(two(tmv.tm_hour)):\(two(tmv.tm_min)):\(two(tmv.tm_sec)) GMT"
    }
}
