import CCurl
import FoundationEssentials

/// The run lock on object storage, decided: a lease object under OUT, created with
/// `If-None-Match: *` (the store refuses a second create), renewed with `If-Match: <etag>`
/// while the run lives, and taken over by the next run once it has gone unrenewed for `ttl`.
///
/// Pure: what the store answered goes in, what to send next comes out; the requests are made
/// elsewhere. Expiry is judged on the store's clock alone (its `Date` answer minus the object's
/// `Last-Modified`), so machines whose clocks disagree still agree on when a lease expired.
public struct ObjectLease: Sendable, Equatable {
    /// A lease expires this long after its last renewal; default 60 s.
    public var ttl: Double = 60
    /// A holder renews this often; default 20 s (`ttl` / 3).
    public var renewInterval: Double = 20
    /// A holder that could not renew for this long gives the lease up (stops its run) before
    /// another run may take it over; default 45 s (`ttl` less a margin for one request).
    public var giveUpAfter: Double = 45

    /// Creates the rule; defaults above.
    public init(ttl: Double = 60, renewInterval: Double = 20, giveUpAfter: Double = 45) {
        self.ttl = ttl
        self.renewInterval = renewInterval
        self.giveUpAfter = giveUpAfter
    }

    /// What a HEAD (or a refused create) of the lease object showed.
    public enum Seen: Sendable, Equatable {
        /// No lease object.
        case absent
        /// A lease object: its ETag, when the store last wrote it and the store's time of the
        /// answer (both from the response: `Last-Modified` and `Date`, whole seconds).
        case present(etag: String, lastModified: Int64, storeNow: Int64)
    }

    /// What to do to take the lease.
    public enum Step: Sendable, Equatable {
        /// PUT the lease with `If-None-Match: *`.
        case create
        /// PUT the lease with `If-Match: etag`: its holder stopped renewing `idle` seconds ago.
        case takeOver(etag: String, idle: Int64)
        /// Another run holds it; it expires in `expiresIn` seconds unless renewed.
        case held(expiresIn: Int64)
    }

    /// The step to take the lease, given what the store showed.
    public func step(_ seen: Seen) -> Step {
        switch seen {
        case .absent:
            return .create
        case .present(let etag, let lastModified, let storeNow):
            let idle = storeNow - lastModified
            if Double(idle) >= ttl { return .takeOver(etag: etag, idle: idle) }
            return .held(expiresIn: Int64(ttl) - idle)
        }
    }

    /// A held lease's renewals, on a monotonic clock in seconds.
    public struct Holding: Sendable, Equatable {
        /// The lease object's current ETag (each renewal changes it).
        public private(set) var etag: String
        /// When the lease was last written successfully.
        public private(set) var renewedAt: Double

        public init(etag: String, at now: Double) {
            self.etag = etag
            renewedAt = now
        }

        /// Whether a renewal is due at `now`.
        public func isDue(_ rule: ObjectLease, now: Double) -> Bool {
            now - renewedAt >= rule.renewInterval
        }

        /// Whether the holder must stop: its last successful renewal is `giveUpAfter` old, so
        /// another run may soon take the lease over (renewals failed or were refused).
        public func mustGiveUp(_ rule: ObjectLease, now: Double) -> Bool {
            now - renewedAt >= rule.giveUpAfter
        }

        /// A renewal succeeded and the store gave the object `etag`.
        public mutating func renewed(etag: String, at now: Double) {
            self.etag = etag
            renewedAt = now
        }
    }

    /// Seconds since 1970 of an HTTP date (`Date`, `Last-Modified`: IMF-fixdate and the two
    /// obsolete forms, as libcurl's `curl_getdate` reads them), or nil when it is not one.
    public static func httpDate(_ text: String) -> Int64? {
        let seconds = curl_getdate(text, nil)
        return seconds < 0 ? nil : Int64(seconds)
    }
}
