import Glibc

/// IMF-fixdate formatting and parsing ("Sun, 06 Nov 1994 08:49:37 GMT"), without Foundation.
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

    /// Parses an IMF-fixdate; nil when malformed.
    static func parse(_ s: String) -> Int? {
        let parts = s.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT",
              let day = Int32(parts[1]),
              let monIndex = months.firstIndex(of: String(parts[2])),
              let year = Int32(parts[3]) else { return nil }
        let hms = parts[4].split(separator: ":")
        guard hms.count == 3, let h = Int32(hms[0]), let m = Int32(hms[1]), let sec = Int32(hms[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(sec)
        else { return nil }
        var tmv = tm()
        tmv.tm_year = year - 1900
        tmv.tm_mon = Int32(monIndex)
        tmv.tm_mday = day
        tmv.tm_hour = h
        tmv.tm_min = m
        tmv.tm_sec = sec
        return Int(timegm(&tmv))
    }
}
