import Glibc
import Testing
@testable import FeedCrawlKit
@testable import FeedCrawlHTTP

@Suite("Address classes and policies")
struct AddressPolicyTests {
    /// Each range's first and last address, and the neighbours just outside it.
    @Test(arguments: [
        ("0.0.0.0", AddressClass.unspecified), ("0.255.255.255", .unspecified), ("1.0.0.0", .public),
        ("9.255.255.255", .public), ("10.0.0.0", .private), ("10.0.0.1", .private),
        ("10.255.255.255", .private), ("11.0.0.0", .public),
        ("126.255.255.255", .public), ("127.0.0.0", .loopback), ("127.0.0.1", .loopback),
        ("127.255.255.255", .loopback), ("128.0.0.0", .public),
        ("169.253.255.255", .public), ("169.254.0.0", .linkLocal), ("169.254.169.254", .linkLocal),
        ("169.254.255.255", .linkLocal), ("169.255.0.0", .public), ("168.254.0.1", .public),
        ("172.15.255.255", .public), ("172.16.0.0", .private), ("172.31.255.255", .private),
        ("172.32.0.0", .public), ("173.16.0.1", .public),
        ("192.167.255.255", .public), ("192.168.0.0", .private), ("192.168.255.255", .private),
        ("192.169.0.0", .public), ("193.168.0.1", .public),
        ("8.8.8.8", .public), ("100.64.0.1", .public), ("255.255.255.255", .public),
    ])
    func ipv4(text: String, expected: AddressClass) throws {
        #expect(AddressClass.of(numericHost: text) == expected)
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        #expect(inet_pton(AF_INET, text, &sin.sin_addr) == 1)
        let viaSockaddr = withUnsafeBytes(of: &sin) { AddressClass.of(numericHost: numericHost($0.baseAddress!, length: $0.count)) }
        #expect(viaSockaddr == expected)
        // The same address mapped into IPv6 is classified as itself.
        #expect(AddressClass.of(numericHost: "::ffff:" + text) == expected)
    }

    @Test(arguments: [
        ("::", AddressClass.unspecified), ("::1", .loopback), ("::2", .public), ("::100", .public),
        ("1::1", .public), ("::1:0", .public),
        ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .public), ("fe80::", .linkLocal), ("fe80::1", .linkLocal),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .linkLocal), ("fec0::", .public),
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .public), ("fc00::", .private), ("fd00::2", .private),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .private), ("fe00::", .public),
        ("2001:db8::1", .public), ("2606:4700::1111", .public), ("ff02::1", .public),
        // IPv4-mapped: classified as the IPv4 address, in both notations.
        ("::ffff:169.254.169.254", .linkLocal), ("::ffff:a9fe:a9fe", .linkLocal), ("::ffff:127.0.0.1", .loopback),
        ("::ffff:0.0.0.0", .unspecified), ("::ffff:10.1.2.3", .private), ("::ffff:8.8.8.8", .public),
        // Not mapped (one bit off in the prefix): plain IPv6.
        ("::fffe:a9fe:a9fe", .public), ("0:0:0:0:1:ffff:a9fe:a9fe", .public), ("::1:ffff:7f00:1", .public),
    ])
    func ipv6(text: String, expected: AddressClass) throws {
        #expect(AddressClass.of(numericHost: text) == expected)
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        #expect(inet_pton(AF_INET6, text, &sin6.sin6_addr) == 1)
        let viaSockaddr = withUnsafeBytes(of: &sin6) { AddressClass.of(numericHost: numericHost($0.baseAddress!, length: $0.count)) }
        #expect(viaSockaddr == expected)
    }

    @Test func hostOrderIPv4() {
        #expect(AddressClass.ipv4(0x7F00_0001) == .loopback)
        #expect(AddressClass.ipv4(0xA9FE_A9FE) == .linkLocal)
        #expect(AddressClass.ipv4(0xAC10_0000) == .private)
        #expect(AddressClass.ipv4(0xAC20_0000) == .public)
    }

    @Test func zonesAndNonAddresses() {
        #expect(AddressClass.of(numericHost: "fe80::1%eth0") == .linkLocal)
        #expect(AddressClass.of(numericHost: "fe80::1%") == .linkLocal)
        for text in ["", "localhost", "example.com", "1.2.3", "256.1.1.1", "[::1]", "::1 ", "1.2.3.4:80", ":::"] {
            #expect(AddressClass.of(numericHost: text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func otherFamiliesAndShortAddressesAreNotClassified() {
        var sun = sockaddr_un()
        sun.sun_family = sa_family_t(AF_UNIX)
        #expect(withUnsafeBytes(of: &sun) { AddressClass.of(numericHost: numericHost($0.baseAddress!, length: $0.count)) } == nil)
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        // An AF_INET6 address cut to sockaddr's 16 bytes.
        #expect(withUnsafeBytes(of: &sin6) { AddressClass.of(numericHost: numericHost($0.baseAddress!, length: 16)) } == nil)
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        #expect(withUnsafeBytes(of: &sin) { AddressClass.of(numericHost: numericHost($0.baseAddress!, length: 8)) } == nil)
    }

    @Test func numericHostNamesSocketAddresses() {
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = UInt32(0xA9FE_A9FE).bigEndian
        #expect(withUnsafeBytes(of: &sin) { numericHost($0.baseAddress!, length: $0.count) } == "169.254.169.254")
        var sin6 = sockaddr_in6()
        sin6.sin6_family = sa_family_t(AF_INET6)
        _ = inet_pton(AF_INET6, "::ffff:169.254.169.254", &sin6.sin6_addr)
        #expect(withUnsafeBytes(of: &sin6) { numericHost($0.baseAddress!, length: $0.count) } == "::ffff:169.254.169.254")
        _ = inet_pton(AF_INET6, "fe80::1", &sin6.sin6_addr)
        #expect(withUnsafeBytes(of: &sin6) { numericHost($0.baseAddress!, length: $0.count) } == "fe80::1")
        var sun = sockaddr_un()
        sun.sun_family = sa_family_t(AF_UNIX)
        #expect(withUnsafeBytes(of: &sun) { numericHost($0.baseAddress!, length: $0.count) } == "an address of family 1")
    }

    @Test func policies() {
        let all: [AddressClass] = [.linkLocal, .loopback, .unspecified, .private, .public]
        for addressClass in all {
            #expect(AddressPolicy.any.refusal(of: addressClass) == nil)
        }
        let strict = AddressPolicy.publicOnly(allowPrivate: false)
        let lenient = AddressPolicy.publicOnly(allowPrivate: true)
        #expect(strict.refusal(of: .public) == nil)
        #expect(lenient.refusal(of: .public) == nil)
        for addressClass in [AddressClass.loopback, .unspecified, .private] {
            #expect(strict.refusal(of: addressClass) != nil)
            #expect(lenient.refusal(of: addressClass) == nil)
        }
        #expect(strict.refusal(of: .linkLocal) == lenient.refusal(of: .linkLocal))
        #expect(lenient.refusal(of: .linkLocal)
            == "link-local address (cloud metadata and other link-local services are never fetched)")
        #expect(strict.refusal(of: .loopback)
            == "loopback address (not fetched unless the feed is on such an address or --allow-private-addresses is given)")
        #expect(strict.refusal(of: .private)?.hasPrefix("private address (") == true)
        #expect(strict.refusal(of: .unspecified)?.hasPrefix("unspecified address") == true)
    }

    @Test func numericHostRefusals() {
        let lenient = AddressPolicy.publicOnly(allowPrivate: true)
        #expect(lenient.refusal(ofNumericHost: "127.0.0.1") == nil)
        #expect(lenient.refusal(ofNumericHost: "169.254.169.254") == lenient.refusal(of: .linkLocal))
        #expect(lenient.refusal(ofNumericHost: "") == "not an IP address")
        #expect(lenient.refusal(ofNumericHost: "/tmp/socket") == "not an IP address")
        #expect(AddressPolicy.any.refusal(ofNumericHost: "") == nil)
    }
}
