/// The checks every source makes before decoding a feed response.
enum FeedReplyCheck {
    /// Why `response` cannot be decoded as a JSON page, or nil when it can.
    ///
    /// - `acceptErrorStatusJSON`: GraphQL servers answer errors (400) with a JSON body worth
    ///   decoding; other sources treat any non-2xx as a page error.
    static func problem(
        _ response: HTTPResponse, acceptErrorStatusJSON: Bool, redactor: SecretRedactor
    ) -> String? {
        if !response.isSuccess && !acceptErrorStatusJSON {
            let excerpt = FeedText.excerpt(response.body, limit: FeedResponseCheck.excerptLength, redactor: redactor)
            return excerpt.isEmpty ? "HTTP \(response.status) with an empty body" : "HTTP \(response.status): \(excerpt)"
        }
        switch FeedResponseCheck.check(
            status: response.status, contentType: response.contentType, body: response.body, redactor: redactor)
        {
        case .json: return nil
        case .error(let reason): return reason
        }
    }

    /// A decode error as one line, with the status when it was not 2xx.
    static func describe(_ error: any Error, status: Int, redactor: SecretRedactor) -> String {
        let text = redactor.redact("\(error)")
        return (200...299).contains(status) ? text : "HTTP \(status): \(text)"
    }
}
