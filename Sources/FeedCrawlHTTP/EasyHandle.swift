import CCurl

/// A libcurl easy handle plus its error buffer. Owned and used only by the loop thread;
/// reused across transfers (`curl_easy_reset` between them).
struct EasyHandle {
    /// The `CURL *`.
    let curl: UnsafeMutableRawPointer
    /// `CURL_ERROR_SIZE` bytes, set as `CURLOPT_ERRORBUFFER` for each transfer.
    let errorBuffer: UnsafeMutablePointer<CChar>

    /// A fresh handle, or `nil` when `curl_easy_init` fails.
    static func make() -> EasyHandle? {
        guard let curl = curl_easy_init() else { return nil }
        let size = Int(CURL_ERROR_SIZE)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        buffer.initialize(repeating: 0, count: size)
        return EasyHandle(curl: curl, errorBuffer: buffer)
    }

    /// curl's text for the last failure: the error buffer if set, else `curl_easy_strerror`.
    func errorMessage(_ code: CURLcode) -> String {
        if errorBuffer[0] != 0 {
            return String(cString: errorBuffer)
        }
        return String(cString: curl_easy_strerror(code))
    }

    /// Clears all options so the handle can be reused. Keeps nothing of the previous transfer.
    func reset() {
        curl_easy_reset(curl)
        errorBuffer[0] = 0
    }

    /// Frees the handle and its buffer. The value must not be used afterwards.
    func destroy() {
        curl_easy_cleanup(curl)
        errorBuffer.deallocate()
    }
}
