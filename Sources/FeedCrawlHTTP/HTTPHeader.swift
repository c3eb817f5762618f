/// One HTTP header field.
///
/// Request headers are sent as given. Response headers carry lowercased names.
public struct HTTPHeader: Sendable, Hashable {
    /// The field name, e.g. `"if-none-match"`.
    public var name: String
    /// The field value, without surrounding whitespace.
    public var value: String

    /// Creates a header field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
