import CCurl

/// `HTTPRequest.resolve`: name overrides in a DNS cache of the transfer's own.
extension Transfer {
    /// Sets `request.resolve` on `h`, with a share handle of the transfer's own for the DNS cache
    /// the entries go into (libcurl keeps them there for good; in the multi handle's cache they
    /// would apply to every later transfer).
    func configureResolve(_ h: UnsafeMutableRawPointer) -> CURLcode {
        guard let share = curl_share_init() else { return CURLE_OUT_OF_MEMORY }
        self.share = share
        let shared = fc_share_setopt_long(share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_DNS.rawValue))
        guard shared == CURLSHE_OK else { return CURLE_OUT_OF_MEMORY }
        for entry in request.resolve {
            guard let list = curl_slist_append(resolveList, entry) else { return CURLE_OUT_OF_MEMORY }
            resolveList = list
        }
        let rc = fc_setopt_ptr(h, CURLOPT_SHARE, share)
        if rc != CURLE_OK { return rc }
        return fc_setopt_slist(h, CURLOPT_RESOLVE, resolveList)
    }

    /// Detaches and frees the share handle and the resolve list (after `curl_multi_remove_handle`,
    /// before `curl_easy_reset`, which would leave the share attached).
    func releaseResolve(_ easy: EasyHandle) {
        if let share {
            _ = fc_setopt_ptr(easy.curl, CURLOPT_SHARE, nil)
            curl_share_cleanup(share)
            self.share = nil
        }
        if let list = resolveList {
            curl_slist_free_all(list)
            resolveList = nil
        }
    }
}
