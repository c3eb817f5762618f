import CCurl
import Glibc

/// Process-wide libcurl set-up, run once (Swift `static let` initialisers run under `swift_once`).
enum CurlGlobal {
    /// `nil` when libcurl initialised; otherwise why it did not.
    static let initError: String? = {
        // With CURLOPT_NOSIGNAL=1 libcurl no longer ignores SIGPIPE itself.
        signal(SIGPIPE, SIG_IGN)
        let rc = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard rc == CURLE_OK else {
            return "curl_global_init failed: \(String(cString: curl_easy_strerror(rc)))"
        }
        return nil
    }()
}
