import CCurl
import Glibc

/// `HTTPRequest.addressPolicy` enforcement (see `AddressPolicy` for why in two places).
extension Transfer {
    /// The open-socket callback's body: refuses an address the policy refuses (recording why), or
    /// creates the socket (close-on-exec) libcurl asked for. Only `CURLSOCKTYPE_IPCXN` (a socket
    /// for a connection to `address`) is policed; libcurl 7.88 asks for nothing else here.
    func openSocket(purpose: curlsocktype, address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let family = address.pointee.family
        let type = address.pointee.socktype
        let proto = address.pointee.protocol
        if purpose == CURLSOCKTYPE_IPCXN {
            // `addr` is declared as a 16-byte sockaddr but libcurl's storage holds the whole
            // address (28 bytes for IPv6): read it in place, never through a copy of `addr`.
            // Classified from its numeric form, as the pre-request check classifies the peer's.
            let host = numericHost(UnsafeRawPointer(address) + Transfer.sockaddrOffset, length: Int(address.pointee.addrlen))
            if let rule = request.addressPolicy.refusal(ofNumericHost: host) {
                let hop = redirectCount()
                if connectRefusal == nil || connectRefusal?.hop != hop {
                    connectRefusal = (.addressRefused(address: host, rule: rule), hop)
                }
                return CURL_SOCKET_BAD
            }
        }
        return socket(family, type | Int32(SOCK_CLOEXEC.rawValue), proto)
    }

    /// The pre-request callback's body: whether the connection the request is about to be sent
    /// over (new or reused) is to an allowed address. Records the refusal as the transfer's
    /// failure when not.
    func allowsConnection(primaryIP: UnsafePointer<CChar>?) -> Bool {
        let address = primaryIP.map { String(cString: $0) } ?? ""
        guard let rule = request.addressPolicy.refusal(ofNumericHost: address) else { return true }
        if failure == nil {
            failure = .addressRefused(address: address.isEmpty ? "the connection" : address, rule: rule)
        }
        return false
    }

    /// The error a callback recorded for a transfer that failed with `code`: the write or
    /// pre-request callback's `failure`, else a refused address of the hop that then could not
    /// connect (`CURLE_COULDNT_CONNECT`, which is what a refused socket makes of it).
    func recordedFailure(for code: CURLcode) -> HTTPError? {
        if let failure { return failure }
        guard let refusal = connectRefusal, code == CURLE_COULDNT_CONNECT, refusal.hop == redirectCount() else {
            return nil
        }
        return refusal.error
    }

    /// Where `curl_sockaddr.addr` starts.
    private static let sockaddrOffset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!

    /// Redirects followed so far (`CURLINFO_REDIRECT_COUNT`; the hop being connected in a callback).
    private func redirectCount() -> Int {
        guard let easy else { return 0 }
        var count = 0
        fc_getinfo_long(easy.curl, CURLINFO_REDIRECT_COUNT, &count)
        return count
    }
}

/// libcurl's open-socket callback (`CURLOPT_OPENSOCKETFUNCTION`), set only for a policy other
/// than `.any`. `context` is the unretained `Transfer`.
let transferOpenSocketCallback: curl_opensocket_callback = { context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.openSocket(purpose: purpose, address: address)
}

/// libcurl's pre-request callback (`CURLOPT_PREREQFUNCTION`), set only for a policy other than
/// `.any`. `context` is the unretained `Transfer`.
let transferPrereqCallback: curl_prereq_callback = { context, primaryIP, _, _, _ in
    guard let context else { return CURL_PREREQFUNC_ABORT }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.allowsConnection(primaryIP: primaryIP) ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
}
