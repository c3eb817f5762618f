/// Request builder for a page-numbered JSON array feed (PunkAPI-style
/// `GET <baseURL>?page=N&per_page=M` answering a bare top-level array).
public struct ArrayQuery: Sendable, Equatable {
    /// Endpoint, e.g. `https://api.punkapi.com/v2/beers`; a query already in it is kept.
    public var baseURL: String
    /// Items per page (at least 1; PunkAPI accepts 1...80, default 25).
    public private(set) var perPage: Int
    /// Name of the page parameter; default `page`.
    public var pageParameter: String
    /// Name of the page-size parameter; default `per_page`.
    public var perPageParameter: String

    /// Creates a query; `perPage` below 1 counts as 1.
    public init(baseURL: String, perPage: Int, pageParameter: String = "page", perPageParameter: String = "per_page") {
        self.baseURL = baseURL
        self.perPage = max(perPage, 1)
        self.pageParameter = pageParameter
        self.perPageParameter = perPageParameter
    }

    /// `<baseURL>?page=N&per_page=M` (or `&…` after an existing query); pages below 1 are sent as 1.
    public func url(page: Int) -> String {
        FeedPercentEncoding.appendingQuery(to: baseURL, [
            (pageParameter, String(max(page, 1))),
            (perPageParameter, String(perPage)),
        ])
    }
}
