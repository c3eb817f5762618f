import Glibc
import FeedCrawlSupport

/// What kind of network an IP address is on, as far as `AddressPolicy` cares.
///
/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is classified as its IPv4 address, since a
/// connection to it reaches that IPv4 address.
public enum AddressClass: Sendable, Equatable {
    /// 169.254.0.0/16, fe80::/10: the cloud metadata service and other on-link services.
    case linkLocal
    /// 127.0.0.0/8, ::1: this machine.
    case loopback
    /// 0.0.0.0/8 ("this network"), `::`. A connection to 0.0.0.0 or `::` reaches this machine
    /// on Linux, so `AddressPolicy` treats these like loopback.
    case unspecified
    /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 (RFC 1918) and fc00::/7 (unique local).
    case `private`
    /// Everything else.
    case `public`

    /// Classifies an IPv4 address given in host byte order (`0x7F000001` is 127.0.0.1).
    public static func ipv4(_ address: UInt32) -> AddressClass {
        let first = address >> 24
        let second = (address >> 16) & 0xFF
        switch first {
        case 0: return .unspecified
        case 127: return .loopback
        case 10: return .private
        case 169 where second == 254: return .linkLocal
        case 172 where second & 0xF0 == 16: return .private
        case 192 where second == 168: return .private
        default: return .public
        }
    }

    /// Classifies an IPv6 address given as its 16 bytes in network order.
    public static func ipv6(_ bytes: [UInt8]) -> AddressClass {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes")
        let zeroPrefix = bytes[0..<10].allSatisfy { $0 == 0 }
        if zeroPrefix && bytes[10] == 0xFF && bytes[11] == 0xFF {
            let v4 = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
            return ipv4(v4)
        }
        if zeroPrefix && bytes[10..<15].allSatisfy({ $0 == 0 }) {
            if bytes[15] == 0 { return .unspecified }
            if bytes[15] == 1 { return .loopback }
        }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return .linkLocal }
        if bytes[0] & 0xFE == 0xFC { return .private }
        return .public
    }

    /// Classifies a numeric IPv4 or IPv6 address (`"169.254.169.254"`, `"::1"`, `"fe80::1%eth0"`;
    /// the zone after `%` is ignored); `nil` when `text` is not one.
    public static func of(numericHost text: String) -> AddressClass? {
        let host = text.utf8.firstIndex(of: UInt8(ascii: "%")).map { String(text[..<$0]) } ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return ipv4(UInt32(bigEndian: v4.s_addr))
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return ipv6(withUnsafeBytes(of: v6) { Array($0) })
        }
        return nil
    }
}

/// Which addresses a request may connect to: a defence against a feed naming the machine's own
/// network (`http://169.254.169.254/…`, `http://127.0.0.1:…`, an internal host), after the
/// example of imgproxy's `ALLOW_LOOPBACK_SOURCE_ADDRESSES` / `ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`.
///
/// The engine checks the address libcurl is about to connect to, after DNS and before any packet
/// leaves (`CURLOPT_OPENSOCKETFUNCTION`, for every address tried and every redirect), so a name
/// that resolves to a refused address is refused too. It checks again before each request is
/// sent (`CURLOPT_PREREQFUNCTION`, with the connection's peer address), because libcurl reuses
/// an idle connection for any transfer to the same scheme, host and port, whatever policy the
/// transfer that opened it had: a feed on loopback fetched with `.any` leaves a connection that
/// an image request with `.publicOnly` would otherwise be sent over. (libcurl 7.88 has no option
/// that keeps such transfers apart: `CURLOPT_FRESH_CONNECT` is ignored on redirects, and the
/// options its connection matching compares either cost a connection per request or must name
/// every host in advance.) A refused transfer fails with `HTTPError.addressRefused`.
///
/// Through a proxy (libcurl honours `http_proxy`, `https_proxy` and `all_proxy` from the
/// environment) the address checked is the proxy's, and the proxy resolves and connects to the
/// feed's hosts itself: the policy does not see those.
public enum AddressPolicy: Sendable, Equatable {
    /// Every address is allowed (what libcurl does by default). The default of
    /// `HTTPRequest.addressPolicy`.
    case any
    /// Link-local addresses are always refused; loopback, unspecified and private addresses are
    /// refused unless `allowPrivate`; public addresses are allowed.
    case publicOnly(allowPrivate: Bool)

    /// Why an address of `addressClass` is refused (the rule, for `HTTPError.addressRefused`),
    /// or `nil` when it is allowed.
    public func refusal(of addressClass: AddressClass) -> String? {
        guard case .publicOnly(let allowPrivate) = self else { return nil }
        let unless = "not fetched unless the feed is on such an address or --allow-private-addresses is given"
        switch addressClass {
        case .public:
            return nil
        case .linkLocal:
            return "link-local address (cloud metadata and other link-local services are never fetched)"
        case .loopback:
            return allowPrivate ? nil : "loopback address (\(unless))"
        case .unspecified:
            return allowPrivate ? nil : "unspecified address, which reaches this machine (\(unless))"
        case .private:
            return allowPrivate ? nil : "private address (\(unless))"
        }
    }

    /// The rule refusing the numeric address `text`, or `nil` when it is allowed. An address
    /// that cannot be classified is refused unless the policy is `.any`.
    func refusal(ofNumericHost text: String) -> String? {
        guard self != .any else { return nil }
        guard let addressClass = AddressClass.of(numericHost: text) else { return "not an IP address" }
        return refusal(of: addressClass)
    }
}

/// The numeric form of a socket address (`"10.0.0.1"`, `"fe80::1"`, `"::ffff:169.254.169.254"`),
/// or a placeholder naming the family when it is not `AF_INET`/`AF_INET6`.
func numericHost(_ address: UnsafeRawPointer, length: Int) -> String {
    let family = Int32(address.load(fromByteOffset: 0, as: sa_family_t.self))
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    var converted = false
    switch family {
    case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
        var addr = address.loadUnaligned(as: sockaddr_in.self).sin_addr
        converted = inet_ntop(AF_INET, &addr, &text, socklen_t(text.count)) != nil
    case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
        var addr = address.loadUnaligned(as: sockaddr_in6.self).sin6_addr
        converted = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count)) != nil
    default:
        break
    }
    guard converted else { return "an address of family \(family)" }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Whether a run may fetch images from loopback and private addresses: yes with
/// `--allow-private-addresses`, or once a feed of the run is seen on such an address (its URL
/// names one, or a response came from one); link-local addresses never. Thread-safe: feed
/// clients open it, the image pipeline reads it for every request.
public final class PrivateAddressScope: Sendable {
    private let allowed: Locked<Bool>

    /// Creates the scope, open or not; default closed.
    public init(allowed: Bool = false) {
        self.allowed = Locked(allowed)
    }

    /// Whether loopback and private addresses may be fetched now.
    public var isOpen: Bool { allowed.withLock { $0 } }

    /// The policy for an image request now.
    public var imagePolicy: AddressPolicy { .publicOnly(allowPrivate: isOpen) }

    /// Opens the scope when `address` (a numeric host, or a feed URL's host; `localhost` counts
    /// as loopback) is loopback, unspecified or private.
    public func noteFeed(host: String) {
        let lowered = host.lowercased()
        let isLocalName = lowered == "localhost" || lowered.hasSuffix(".localhost")
        let kind: AddressClass? = isLocalName ? .loopback : AddressClass.of(numericHost: host)
        switch kind {
        case .loopback?, .unspecified?, .private?:
            allowed.withLock { $0 = true }
        default:
            break
        }
    }
}
